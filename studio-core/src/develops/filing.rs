//! Where a develop's frame is filed: the optional `folderId` of a submit (the multipart field,
//! `StartDevelop::folder_id`, the client's `DevelopSubmit::folder`) names a collection of the
//! house. It is checked before anything is held (an unknown collection, or another house's,
//! is refused 404 `NOT_FOUND` like the folder routes refuse it) and rides in the job's options,
//! so a duplicate or a take lands beside the original. When the frame lands, the runner files it
//! there; a collection deleted in between leaves the frame at the library's root.

use crate::ids::FolderId;
use std::collections::BTreeMap;

use crate::caller::Caller;
use crate::develops::Develops;
use crate::error::Result;

/// The submit field, and the job option, naming the collection a frame is filed in.
pub(crate) const FOLDER_FIELD: &str = "folderId";
/// The option a pipeline's sink files its frames with (pipelines/runs.rs).
const PIPELINE_DESTINATION: &str = "destination";

/// The collection a landed frame of a job with `params` is filed in: its `folderId`, else a
/// pipeline's `destination`; the runner still checks it belongs to the job's house.
pub(crate) fn filing_folder(params: &BTreeMap<String, String>) -> Option<&str> {
    params.get(FOLDER_FIELD).or_else(|| params.get(PIPELINE_DESTINATION)).map(|f| f.trim()).filter(|f| !f.is_empty())
}

impl Develops<'_> {
    /// Check the collection a develop's `params` name (`folderId`) before anything is held:
    /// a blank value is dropped, a collection that is not the caller's house's is refused
    /// 404 `NOT_FOUND`; the trimmed id stays in the options for the runner.
    pub(crate) async fn check_develop_folder(
        &self,
        caller: &Caller,
        params: &mut BTreeMap<String, String>,
    ) -> Result<()> {
        let Some(raw) = params.get(FOLDER_FIELD) else { return Ok(()) };
        let id = raw.trim().to_string();
        if id.is_empty() {
            params.remove(FOLDER_FIELD);
            return Ok(());
        }
        self.studio
            .library()
            .folder(&caller.org_id, &FolderId::from(&id))
            .await?
            .ok_or_else(crate::library::folders::not_found)?;
        params.insert(FOLDER_FIELD.to_string(), id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submits_folder_wins_over_a_pipelines_destination() {
        let mut params = BTreeMap::new();
        assert_eq!(filing_folder(&params), None);
        params.insert("destination".to_string(), "fld_sink".to_string());
        assert_eq!(filing_folder(&params), Some("fld_sink"));
        params.insert("folderId".to_string(), " fld_mine ".to_string());
        assert_eq!(filing_folder(&params), Some("fld_mine"));
        params.insert("folderId".to_string(), "  ".to_string());
        assert_eq!(filing_folder(&params), None);
    }
}
