//! The models shipped in `models/`, for tests that run every one.

/// Every shipped model's name (`models/{name}.csp`), in order.
pub fn models() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("models")
        .expect("the models directory")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "csp").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    assert!(names.len() >= 12, "the shipped models: {names:?}");
    names
}
