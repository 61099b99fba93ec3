//! `POST /api/toolkit/ai/inspiration-keywords`: keyword groups for a mood.

super::json_lane!(
    "/api/toolkit/ai/inspiration-keywords",
    inspiration_keywords,
    studio_core::api::InspirationRequest,
    studio_core::api::InspirationResponse,
    "Inspiration keywords for a mood (AI reader; 1 token)",
    "JSON {vibe (required, at most 500 characters)}. Answers {ok, categories [{category, keywords}] (1 to 8 groups \
     of 1 to 12), spent}. Codes: 400 BAD_JSON, VIBE_REQUIRED, TOO_LONG; 401; 402 AI_NEEDS_BILLING (need, \
     spendable); 403 FORBIDDEN (viewer); 502 AI_FAILED, AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED."
);
