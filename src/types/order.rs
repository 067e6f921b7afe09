//! The order declarations are checked in: groups that use each other
//! (strongly connected components of "uses"), each after the groups it
//! uses, as FDR orders them. Built from the names the resolver saw
//! each top-level function use
//! ([`Function::uses`](crate::script::ir::Function::uses)) with dense
//! tables: it runs on every load.

use crate::script::ir::{ChannelId, DataTypeId, FuncId, GlobalId, GlobalKind};
use crate::script::{Named, Script};

/// A declaration checked as a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decl {
    /// A definition, nametype or subtype.
    Global(GlobalId),
    /// A datatype with its constructors.
    DataType(DataTypeId),
    Channel(ChannelId),
    /// A `Timed` section's `tock` and function, checked before the
    /// section's definitions (which use `tock` at every prefix).
    Timed(usize),
}

/// No declaration (a built-in, or a name that is not one).
const NONE: u32 = u32::MAX;

/// The script's declarations in groups, each after the groups it uses.
pub struct Order {
    pub groups: Vec<Vec<Decl>>,
    /// The earlier groups each group uses, by index in `groups`.
    pub uses: Vec<Vec<usize>>,
}

/// The script's declarations in dependency order.
pub fn dependency_order(script: &Script) -> Order {
    let mut decls = Vec::new();
    let mut of_global = vec![NONE; script.globals.len()];
    for (i, global) in script.globals.iter().enumerate() {
        if matches!(
            global.kind,
            GlobalKind::Definition(_) | GlobalKind::NameType(_) | GlobalKind::SubType(_)
        ) {
            of_global[i] = decls.len() as u32;
            decls.push(Decl::Global(GlobalId(i as u32)));
        }
    }
    let first_datatype = decls.len() as u32;
    decls.extend((0..script.datatypes.len()).map(|d| Decl::DataType(DataTypeId(d as u32))));
    let first_channel = decls.len() as u32;
    decls.extend((0..script.channels.len()).map(|c| Decl::Channel(ChannelId(c as u32))));
    let first_timed = decls.len() as u32;
    decls.extend((0..script.timed.len()).map(Decl::Timed));
    // A datatype's name stands for its declaration.
    for (i, global) in script.globals.iter().enumerate() {
        if let GlobalKind::DataType(d) = global.kind {
            of_global[i] = first_datatype + d.0;
        }
    }
    // Each definition of a section comes after the section's check.
    let mut section_of = vec![NONE; script.globals.len()];
    for (i, section) in script.timed.iter().enumerate() {
        for &g in &section.members {
            section_of[g.index()] = first_timed + i as u32;
        }
    }
    let node_of = |named: &Named| -> u32 {
        match *named {
            Named::Global(g) => of_global.get(g.index()).copied().unwrap_or(NONE),
            Named::Ctor(c) => first_datatype + script.ctors[c.index()].datatype.0,
            Named::Channel(c) => first_channel + c.0,
        }
    };
    // The edges, all in one table: declaration `d` uses
    // `targets[starts[d]..starts[d + 1]]`.
    let mut starts = Vec::with_capacity(decls.len() + 1);
    let mut targets: Vec<usize> = Vec::new();
    let mut found: Vec<u32> = Vec::new();
    for &decl in &decls {
        found.clear();
        for_each_root(script, decl, |root| match root {
            Root::Function(f) => found.extend(script.function(f).uses.iter().map(node_of)),
            Root::DataType(d) => found.push(first_datatype + d.0),
        });
        if let Decl::Global(g) = decl {
            found.push(section_of[g.index()]);
            // An instance's argument is checked against its module's
            // parameter once the module's generic copy is checked.
            if let Some(copies) = &script.generic
                && let Some(&(instance, _)) = copies.of_argument.get(&g)
            {
                let copy = copies.instances[instance as usize].copy.clone();
                found.extend(copy.map(|i| of_global[i as usize]));
            }
        }
        found.sort_unstable();
        found.dedup();
        starts.push(targets.len());
        targets.extend(found.iter().filter(|&&n| n != NONE).map(|&n| n as usize));
    }
    starts.push(targets.len());
    let components = crate::script::graph::strongly_connected(decls.len(), |d| {
        &targets[starts[d]..starts[d + 1]]
    });
    let mut group_of = vec![0; decls.len()];
    for (group, component) in components.iter().enumerate() {
        component.iter().for_each(|&d| group_of[d] = group);
    }
    let uses = components
        .iter()
        .enumerate()
        .map(|(group, component)| {
            let mut used: Vec<usize> = component
                .iter()
                .flat_map(|&d| &targets[starts[d]..starts[d + 1]])
                .map(|&t| group_of[t])
                .filter(|&g| g != group)
                .collect();
            used.sort_unstable();
            used.dedup();
            used
        })
        .collect();
    let groups = components
        .into_iter()
        .map(|component| component.into_iter().map(|i| decls[i]).collect())
        .collect();
    Order { groups, uses }
}

/// The declaration that gives `named` its type.
pub fn declaration_of(script: &Script, named: Named) -> Decl {
    match named {
        Named::Global(g) => match script.globals[g.index()].kind {
            GlobalKind::DataType(d) => Decl::DataType(d),
            _ => Decl::Global(g),
        },
        Named::Ctor(c) => Decl::DataType(script.ctors[c.index()].datatype),
        Named::Channel(c) => Decl::Channel(c),
    }
}

/// What a declaration is made of: the top-level functions whose names
/// it uses, and (for a subtype) the datatypes its constructors are of.
enum Root {
    Function(FuncId),
    DataType(DataTypeId),
}

fn for_each_root(script: &Script, decl: Decl, mut visit: impl FnMut(Root)) {
    let functions: &[FuncId] = match decl {
        Decl::Global(g) => match &script.globals[g.index()].kind {
            GlobalKind::Definition(f) | GlobalKind::NameType(f) => std::slice::from_ref(f),
            GlobalKind::SubType(clauses) => {
                for (ctor, fields) in clauses {
                    visit(Root::DataType(script.ctors[ctor.index()].datatype));
                    fields.iter().for_each(|&f| visit(Root::Function(f)));
                }
                &[]
            }
            GlobalKind::DataType(_) | GlobalKind::Builtin(_) => &[],
        },
        Decl::DataType(d) => {
            for c in &script.datatypes[d.index()].ctors {
                let fields = &script.ctors[c.index()].fields;
                fields.iter().for_each(|&f| visit(Root::Function(f)));
            }
            &[]
        }
        Decl::Channel(c) => &script.channels[c.index()].fields,
        Decl::Timed(i) => {
            let section = &script.timed[i];
            section
                .tock
                .iter()
                .chain(&section.function)
                .for_each(|&f| visit(Root::Function(f)));
            &[]
        }
    };
    functions.iter().for_each(|&f| visit(Root::Function(f)));
}
