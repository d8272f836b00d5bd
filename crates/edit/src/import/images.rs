//! The local images of imported texts, copied into the spec: each `![words](path)` whose file lies
//! beside the text (in its folder or below) becomes a file of the spec's `images/` folder, which the
//! site publishes, and the link the path from a chapter to it (`../images/NAME`). An image that
//! cannot be copied (outside the text's folder, missing, not a raster image) keeps its words, and
//! says why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kcontract_spec::{IMAGES_FOLDER, fsutil, is_image_name};

use super::links::local_images;

/// What to copy, and how each text's images are named in the spec.
#[derive(Debug, Default)]
pub struct Copied {
    /// New files of the spec's `images/` folder: name, bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// For each text (in the order given): each image destination as written, and its name in
    /// `images/` ([`super::Options::images`]).
    pub names: Vec<BTreeMap<String, String>>,
    /// Images not copied: the text, the destination, why.
    pub refused: Vec<(PathBuf, String, String)>,
}

/// The local images of `texts` (each file and its text), read from beside each file and named
/// for the spec's `images/` folder: by the file's own name, `-2`, `-3`, … when another image (of
/// these texts, or already in `spec`'s `images/`, for `--into`) has it with other bytes; an image
/// already there with the same bytes is not copied again.
pub fn copy(texts: &[(&Path, &str)], spec: Option<&Path>) -> Copied {
    let mut out = Copied::default();
    // Each name taken, with its bytes.
    let mut taken: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (file, src) in texts {
        let base = file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut names = BTreeMap::new();
        for dest in local_images(src) {
            match read(base, &dest) {
                Ok((name, bytes)) => {
                    let name = place(&name, bytes, &mut taken, spec, &mut out.files);
                    names.insert(dest, name);
                }
                Err(why) => out.refused.push((file.to_path_buf(), dest, why)),
            }
        }
        out.names.push(names);
    }
    out
}

/// The image at `dest` from the folder `base`: its name and bytes, or why not.
fn read(base: &Path, dest: &str) -> Result<(String, Vec<u8>), String> {
    let path = base.join(dest.split(['#', '?']).next().unwrap_or(dest));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    if !is_image_name(&name) {
        return Err(format!(
            "an image of the spec is a .{} file named with letters, digits, `.`, `-` and `_`",
            kcontract_spec::IMAGE_EXTENSIONS.join(", .")
        ));
    }
    let bytes = fsutil::read_inside(base, &path, fsutil::MAX_INPUT).map_err(|e| e.to_string())?;
    Ok((name, bytes))
}

/// The name `bytes` get in `images/`, recorded in `taken` (and in `files` when it is a new file).
fn place(
    name: &str,
    bytes: Vec<u8>,
    taken: &mut BTreeMap<String, Vec<u8>>,
    spec: Option<&Path>,
    files: &mut Vec<(String, Vec<u8>)>,
) -> String {
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let mut candidate = name.to_string();
    let mut n = 2;
    loop {
        if let Some(there) = taken.get(&candidate) {
            if *there == bytes {
                return candidate;
            }
        } else {
            let existing = spec.map(|s| s.join(IMAGES_FOLDER).join(&candidate));
            match existing.filter(|p| p.exists()) {
                Some(p) => {
                    let there = fsutil::read_regular(&p, fsutil::MAX_INPUT).unwrap_or_default();
                    let same = there == bytes;
                    taken.insert(candidate.clone(), there);
                    if same {
                        return candidate;
                    }
                }
                None => {
                    taken.insert(candidate.clone(), bytes.clone());
                    files.push((candidate.clone(), bytes));
                    return candidate;
                }
            }
        }
        candidate = format!("{stem}-{n}.{ext}");
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two texts with an image of the same name and other bytes, one of the same bytes, one
    /// outside the text's folder and one missing.
    #[test]
    fn images_are_named_once_and_refused_with_a_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::create_dir_all(d.join("a/img")).unwrap();
        std::fs::create_dir_all(d.join("b")).unwrap();
        std::fs::write(d.join("a/img/f.png"), "one").unwrap();
        std::fs::write(d.join("b/f.png"), "two").unwrap();
        std::fs::write(d.join("out.png"), "x").unwrap();
        let (a, b) = (d.join("a/a.md"), d.join("b/b.md"));
        let texts: Vec<(&Path, &str)> = vec![
            (&a, "![1](img/f.png) ![2](../out.png) ![3](gone.png)"),
            (&b, "![4](f.png) ![5](./f.png)"),
        ];
        let c = copy(&texts, None);
        let names: Vec<&str> = c.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["f.png", "f-2.png"]);
        assert_eq!(c.names[0]["img/f.png"], "f.png");
        assert_eq!(c.names[1]["f.png"], "f-2.png");
        assert_eq!(c.names[1]["./f.png"], "f-2.png");
        let refused: Vec<&str> = c.refused.iter().map(|(_, d, _)| d.as_str()).collect();
        assert_eq!(refused, ["../out.png", "gone.png"]);
    }
}
