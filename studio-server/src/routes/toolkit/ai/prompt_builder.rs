//! `POST /api/toolkit/ai/prompt-builder`: one image-model prompt for a subject.

super::json_lane!(
    "/api/toolkit/ai/prompt-builder",
    prompt_builder,
    studio_core::api::PromptBuilderRequest,
    studio_core::api::PromptBuilderResponse,
    "Build an image-model prompt (AI reader; 1 token)",
    "JSON {subject (required, at most 2,000 characters), vibe}. The house's brand clause informs the prompt. \
     Answers {ok, prompt, spent}. Codes: 400 BAD_JSON, SUBJECT_REQUIRED, TOO_LONG; 401; 402 AI_NEEDS_BILLING \
     (need, spendable); 403 FORBIDDEN (viewer); 502 AI_FAILED, AI_BAD_OUTPUT (released); 503 AI_NOT_CONFIGURED."
);
