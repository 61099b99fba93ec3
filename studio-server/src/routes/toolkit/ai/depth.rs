//! `POST /api/toolkit/ai/depth`: a grayscale depth map from fal, behind a short-lived signed URL.

super::image_lane!(
    "/api/toolkit/ai/depth",
    depth,
    studio_core::api::DepthResponse,
    "Depth map of an image (fal; 1 token)",
    "Multipart `image` (12 MB). Answers {url, spent}: a grayscale PNG (near is light) behind a signed URL that \
     expires 15 minutes after the answer; never kept in the library. Runs on fal (`STUDIO_FAL_KEY`, model \
     `STUDIO_FAL_DEPTH_MODEL`). Codes: 400 IMAGE_REQUIRED, EMPTY_IMAGE, BAD_FORM; 401; 402 INSUFFICIENT_TOKENS \
     (need, spendable); 403 FORBIDDEN (viewer); 413 IMAGE_TOO_LARGE (maxMb); 502 DEPTH_FAILED (released); 503 \
     FAL_NOT_CONFIGURED (nothing held)."
);
