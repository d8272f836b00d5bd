//! The spec's images: files in `images/` beside `contract.yaml`, which a chapter shows with
//! `![words](../images/NAME)` (the path from its language folder, so the link works where the
//! Markdown is read too) and the site publishes as `images/NAME` beside its language folders, where
//! the same relative link lands. Raster formats only: an SVG can hold script, which a page of the
//! site's own origin must not serve.

use std::collections::BTreeSet;
use std::path::Path;

use super::files::Tree;

/// The folder of the images, in the spec folder and in the site.
pub const IMAGES_FOLDER: &str = "images";

/// The file name endings of an image the spec may hold.
pub const IMAGE_EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "gif", "webp"];

/// Whether `name` can name an image of the spec: letters, digits, `.`, `-` and `_`, not hidden,
/// ending with one of [`IMAGE_EXTENSIONS`] (any case).
pub fn is_image_name(name: &str) -> bool {
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    ok_chars
        && !name.starts_with('.')
        && ext.is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.as_str()))
}

/// The image a chapter's link destination names (`../images/NAME`, a fragment or query aside).
pub fn image_of_link(dest: &str) -> Option<&str> {
    let path = dest.split(['#', '?']).next().unwrap_or(dest);
    path.strip_prefix("../")
        .and_then(|p| p.strip_prefix(IMAGES_FOLDER))
        .and_then(|p| p.strip_prefix('/'))
        .filter(|n| !n.contains('/'))
}

/// The images in the spec folder `dir` (their names), of `tree`.
pub(crate) fn images_in(tree: &Tree, dir: &Path) -> BTreeSet<String> {
    let folder = dir.join(IMAGES_FOLDER);
    tree.files_in(&folder)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_string()))
        .filter(|n| is_image_name(n))
        .collect()
}

/// The images in the spec folder `dir` on disk (their names, sorted): what the site publishes.
pub fn spec_images(dir: &Path) -> Vec<String> {
    images_in(&Tree::Disk, dir).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_links() {
        assert!(is_image_name("flow.png") && is_image_name("A_b-1.JPG"));
        assert!(!is_image_name("x.svg") && !is_image_name(".x.png") && !is_image_name("a b.png"));
        assert_eq!(image_of_link("../images/flow.png"), Some("flow.png"));
        assert_eq!(image_of_link("../images/a/b.png"), None);
        assert_eq!(image_of_link("images/flow.png"), None);
    }
}
