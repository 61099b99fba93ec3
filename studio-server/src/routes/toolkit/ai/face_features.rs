//! `POST /api/toolkit/ai/face-features`: twenty facial-feature keywords, or none.

super::json_lane!(
    "/api/toolkit/ai/face-features",
    face_features,
    studio_core::api::FaceFeaturesRequest,
    studio_core::api::FaceFeaturesResponse,
    "Facial-feature keywords of an image (AI reader; 1 token)",
    "JSON {imageUrl (an asset id or file URL of this house, or a URL a lane answered)}. Answers {ok, faceDetected, \
     keywords (exactly twenty, or none with faceDetected false), spent}. Codes: 400 BAD_JSON, IMAGE_REQUIRED, \
     BAD_IMAGE_URL; 401; 402 AI_NEEDS_BILLING (need, spendable); 403 FORBIDDEN (viewer); 404 ASSET_NOT_FOUND; 502 \
     AI_FAILED, AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED (nothing held)."
);
