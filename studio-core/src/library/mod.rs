//! The house's library: folders (collections), assets (uploads, renames, moves, deletes, the
//! paged and cached lists) and packs (store-mode zips built as a stream). Each file holds one
//! part's `impl Studio` and its rules; the wire types are in `crate::api::library`.

pub(crate) mod asset_lists;
pub(crate) mod assets;
pub(crate) mod folders;
pub(crate) mod packs;
pub(crate) mod renditions;

crate::studio::view! {
    /// The library domain (assets, folders, packs, renditions, signed links): `studio.library()`.
    Library over LibraryStore
}
