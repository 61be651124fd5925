//! The names a search gives its files in a run directory, and the
//! clean-up that removes what a killed run left there: only names of these
//! formats are ever touched.

use std::path::Path;

use super::manifest::Kept;

/// Removes what a killed run left in a checkpoint besides the files its
/// manifest names: temporary files, candidate runs, and level files written
/// after the manifest (the resumed search writes them again). Only names
/// of this format are touched.
pub(crate) fn remove_orphans(dir: &Path, kept: &[Kept]) {
    let named: std::collections::HashSet<&str> = kept
        .iter()
        .flat_map(|k| k.files.iter().map(String::as_str))
        .collect();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = is_ours(name);
        if ours && !named.contains(name) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Removes the temporary files and candidate runs this process left in
/// `dir` (their names carry its id), and nothing else.
pub(crate) fn remove_own_temporaries(dir: &Path) {
    let pid = std::process::id();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let own = name.contains(&format!(".{pid}-")) && name.ends_with(".tmp")
            || name.starts_with('C')
                && name.contains(&format!("-{pid}-"))
                && name.ends_with(".run");
        if own && is_ours(name) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `name` is one of the names a search gives its files: a level
/// (`L000012-p00003.run`), a candidate run (`C000012-4242-7.run`), either
/// one's temporary file (`….run.4242-7.tmp`), or the manifest's
/// (`checkpoint.toml.tmp`). Nothing else in a directory is touched.
fn is_ours(name: &str) -> bool {
    fn digits(s: &str, n: Option<usize>) -> bool {
        !s.is_empty() && n.is_none_or(|n| s.len() == n) && s.bytes().all(|b| b.is_ascii_digit())
    }
    fn run(stem: &str) -> bool {
        if let Some(rest) = stem.strip_prefix('L') {
            return rest
                .split_once("-p")
                .is_some_and(|(d, p)| digits(d, Some(6)) && digits(p, Some(5)));
        }
        if let Some(rest) = stem.strip_prefix('C') {
            let parts: Vec<&str> = rest.split('-').collect();
            return parts.len() == 3
                && digits(parts[0], Some(6))
                && digits(parts[1], None)
                && digits(parts[2], None);
        }
        false
    }
    if name == format!("{}.tmp", super::manifest::NAME) {
        return true;
    }
    if crate::engine::census::saves::is_census_file(name) {
        return true;
    }
    if let Some(stem) = name.strip_suffix(".run") {
        return run(stem);
    }
    if let Some(rest) = name.strip_suffix(".tmp")
        && let Some((file, tag)) = rest.rsplit_once('.')
        && let Some(stem) = file.strip_suffix(".run")
        && let Some((pid, n)) = tag.split_once('-')
    {
        return run(stem) && digits(pid, None) && digits(n, None);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_ours;

    #[test]
    fn only_the_search_s_own_names_are_ours() {
        for name in [
            "L000012-p00003.run",
            "C000012-4242-7.run",
            "L000000-p00000.run.4242-0.tmp",
            "C000001-17-2.run.17-9.tmp",
            "checkpoint.toml.tmp",
            "census-keys.u32",
            "census-roots.u32.tmp",
            "census-codes-117.u64",
            "census-codes-0.u64.tmp",
        ] {
            assert!(is_ours(name), "{name}");
        }
        for name in [
            "Letter.run",
            "Chapter.tmp",
            "L12-p3.run",
            "Cover-letter-1.run",
            "L000012-p00003.run.bak",
            "checkpoint.toml",
            "reach.lock",
            "L000012-p00003.run.x-1.tmp",
            "notes.tmp",
            "census-codes-.u64",
            "census-codes-x.u64",
            "census-keys.u16",
        ] {
            assert!(!is_ours(name), "{name}");
        }
    }
}
