//! The models compiled into the binary, so that `symcsp` alone has
//! something to show.

/// The paper's running example, the lock-based list stack.
pub const LISTSTACK: BuiltinModel = BuiltinModel {
    name: "liststack.csp",
    description: "the lock-based stack of Gibson-Robinson & Lowe, Section 1.2",
    text: include_str!("../models/liststack.csp"),
};

/// A script shipped inside the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinModel {
    pub name: &'static str,
    pub description: &'static str,
    pub text: &'static str,
}
