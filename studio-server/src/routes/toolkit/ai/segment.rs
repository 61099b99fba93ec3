//! `POST /api/toolkit/ai/segment`: one object cut out of an image of this house, behind a
//! short-lived signed URL.

super::json_lane!(
    "/api/toolkit/ai/segment",
    segment,
    studio_core::api::SegmentRequest,
    studio_core::api::SegmentResponse,
    "Cut one object out of an image (local by box or point, fal by label; 1 token)",
    "JSON {imageUrl (an asset id or file URL of this house, or a URL a lane answered; never fetched from \
     elsewhere), box [x0,y0,x1,y1] and point [x,y] in pixels of the EXIF-applied frame, label}; at least one \
     target; box wins over point, point over label. Box and point run on the local provider; label alone on fal \
     (`STUDIO_FAL_SEGMENT_MODEL`). Answers {url, bbox [x0,y0,x1,y1], spent}: an RGBA PNG of the frame behind a \
     signed URL that expires 15 minutes after the answer, never kept in the library. Codes: 400 BAD_JSON, \
     IMAGE_REQUIRED, BAD_IMAGE_URL, TARGET_REQUIRED, BAD_TARGET (width, height); 401; 402 INSUFFICIENT_TOKENS; 403 \
     FORBIDDEN (viewer); 404 ASSET_NOT_FOUND; 410 LINK_EXPIRED; 422 SUBJECT_NOT_FOUND (nothing to cut, or the \
     subject gate refuses the mask; released); 502 SEGMENT_FAILED (released); 503 \
     FAL_NOT_CONFIGURED (label only; nothing held)."
);
