//! What to do next, for every code the server can answer (and the few the CLI makes itself):
//! `main` prints the server's `error: CODE: message`, then `hint: ` and the sentence from here.
//! A code not in the table still gets a sentence, chosen by the HTTP status.

/// Every code the core spec names or the server can answer, plus the CLI's own. The unit tests
/// check each has its own sentence.
#[cfg(test)]
pub(crate) const CODES: &[&str] = &[
    // Accounts, sessions and keys.
    "UNAUTHORIZED",
    "BAD_CREDENTIALS",
    "EMAIL_TAKEN",
    "WEAK_PASSWORD",
    "BAD_EMAIL",
    "BAD_NAME",
    "SESSION_REQUIRED",
    "FORBIDDEN",
    "BAD_ORIGIN",
    "role_cannot_spend_money",
    "role_cannot_spend_tokens",
    // Tokens.
    "INSUFFICIENT_TOKENS",
    // Develops, jobs, takes and runs.
    "UNKNOWN_TOOL",
    "NO_IMAGE",
    "EMPTY_IMAGE",
    "NO_INPUTS",
    "NOT_DEVELOPED",
    "IDEMPOTENCY_KEY_REUSED",
    "BAD_QUALITY",
    "BAD_PARAMS",
    "BAD_SINCE",
    "BAD_STATE",
    "BAD_STATUS",
    "BAD_LIMIT",
    "ENQUEUE_FAILED",
    "SUBMIT_FAILED",
    "UPGRADE_REQUIRED",
    "DEVELOP_FAILED",
    "DEVELOP_CANCELLED",
    // Library: assets and collections.
    "NO_FILE",
    "EMPTY_FILE",
    "UNSUPPORTED_TYPE",
    "IMAGE_TOO_LARGE",
    "BAD_IMAGE",
    "BAD_KIND",
    "BAD_SKU",
    "BAD_FOLDER",
    "BAD_ASSET_IDS",
    "BAD_OPERATION",
    "NAME_REQUIRED",
    "NOT_FOUND",
    // Packs.
    "BAD_SIZES",
    "BAD_RANGE",
    "PACK_NOT_READY",
    "PACK_FAILED",
    "PACK_EXPIRED",
    "PACK_TOO_LARGE",
    // Reads, pre-flight and verdicts.
    "AI_NOT_CONFIGURED",
    "AI_FAILED",
    "ASSET_NOT_FOUND",
    "IMAGE_REQUIRED",
    "IMAGES_REQUIRED",
    "TOO_MANY_IMAGES",
    "BAD_LENS",
    "REDRAW_FUTILE",
    "VERDICT_UNREADABLE",
    "INPUT_UNREADABLE",
    "RESULT_UNREADABLE",
    // Requests the server could not read.
    "BAD_BODY",
    "BAD_FORM",
    "BAD_PATH",
    // Admin grants.
    "BAD_AMOUNT",
    "BAD_TOKENS",
    "BAD_EXPIRY",
    "USER_REQUIRED",
    "USER_NOT_FOUND",
    // Billing (owner sessions in the studio; no key reaches these, but the spec names them).
    "BAD_PACK",
    "BAD_TIER",
    "AMOUNT_OUT_OF_RANGE",
    "CHECKOUT_FAILED",
    "BILLING_NOT_CONFIGURED",
    "NO_CUSTOMER",
    "PORTAL_FAILED",
    "PORTAL_NO_URL",
    "BAD_THRESHOLD",
    "BAD_CAP",
    "CAP_BELOW_REFILL",
    "AMBIGUOUS_PACK_PRICE",
    "charge_failed",
    "UNPARSEABLE",
    "BAD_SIGNATURE",
    "APPLY_FAILED",
    // Lookbooks and the factory.
    "LOOK_LOCKED",
    "LOCK_REQUIRED",
    "ASSETS_REQUIRED",
    "LOOKS_REQUIRED",
    "TOO_MANY_LOOKS",
    "MODEL_REQUIRED",
    "BAD_AESTHETIC",
    "ITEMS_REQUIRED",
    "TOO_MANY_ITEMS",
    "BAD_ITEM",
    "BAD_BACKGROUND",
    "KEYS_REQUIRED",
    "TOO_MANY_FRAMES",
    "UNKNOWN_VARIATION",
    "DEVELOP_IN_FLIGHT",
    "NOT_A_LOOK_FRAME",
    "ASSET_REQUIRED",
    "UNKNOWN_DESTINATION",
    "BAD_DIMENSIONS",
    "OUTPUT_TOO_LARGE",
    "QUALITY_TOO_LOW_FOR_OUTPUT",
    "LOOKBOOK_NOT_CONFIGURED",
    // Pipelines, and the CLI's own for a run that `pipeline run --wait` saw end short.
    "BAD_PLAN",
    "BAD_ITEMS",
    "LINE_TOO_WIDE",
    "PRESET_NOT_FOUND",
    "PIPELINE_FAILED",
    "PIPELINE_SETTLED",
    "PIPELINE_CANCELLED",
    // Models and the catalog.
    "ALREADY_YOURS",
    "FREE_MODEL",
    "NOT_FOR_SALE",
    "TAKEN",
    "CHECKOUT_PENDING",
    // Brand: the profile, the DNA read and the marks.
    "BAD_JSON",
    "NO_IMAGES",
    "SET_TOO_LARGE",
    "AI_BAD_OUTPUT",
    "BAD_MATERIAL",
    "BAD_PLACEMENT",
    "BAD_NOTE",
    "ALREADY_REGISTERED",
    "COLLECTION_NOT_FOUND",
    "role_cannot_edit_marks",
    // AI lanes and text tools (`studio ai`).
    "TARGET_REQUIRED",
    "BAD_TARGET",
    "VIBE_REQUIRED",
    "DESCRIPTION_REQUIRED",
    "SUBJECT_REQUIRED",
    "PROMPT_REQUIRED",
    "BAD_COUNT",
    "AI_NEEDS_BILLING",
    "DEPTH_FAILED",
    "SEGMENT_FAILED",
    "REMOVE_BG_FAILED",
    "FAL_NOT_CONFIGURED",
    "BAD_IMAGE_URL",
    "LINK_EXPIRED",
    "TOO_LONG",
    // Mail: the email links, the letter archive and the delivery webhook.
    "INVALID_TOKEN",
    "TOKEN_USED",
    "TOKEN_REPLACED",
    "TOKEN_EXPIRED",
    "TOKEN_STALE",
    "BAD_CURSOR",
    "MAIL_WEBHOOK_NOT_CONFIGURED",
    // Seats, houses and memories.
    "ALREADY_MEMBER",
    "OWNER_SEAT_OWNER_ONLY",
    "INVITE_LIMIT",
    "INVITATION_NOT_FOUND",
    "EMAIL_MISMATCH",
    "EMAIL_UNVERIFIED",
    "BAD_ROLE",
    "CANNOT_RESEAT_SELF",
    "SEAT_NOT_FOUND",
    "FOUNDER_SEAT",
    "OWNER_MUST_TRANSFER",
    "OWNERSHIP_CHANGED",
    "ALREADY_OWNER",
    "HOUSE_NOT_FOUND",
    "MEMORY_NOT_FOUND",
    "BAD_STATEMENT",
    "BAD_CONFIDENCE",
    "NO_ACTIVE_PLAN",
    "CANCEL_FAILED",
    // Support.
    "TOO_LITTLE_SAID",
    "BAD_TOPIC",
    "BAD_RATING",
    "BAD_SCREENSHOTS",
    "THREAD_UNAVAILABLE",
    "SCREENSHOT_GONE",
    "UNSUPPORTED_MEDIA_TYPE",
    // The assistant.
    "CHAT_SESSION_NOT_FOUND",
    "SESSION_ESCALATED",
    "ACTION_NOT_FOUND",
    "ACTION_IN_PROGRESS",
    "MESSAGE_REQUIRED",
    // Search.
    "QUERY_REQUIRED",
    "BAD_KINDS",
    // Webhooks.
    "BAD_WEBHOOK_URL",
    "WEBHOOK_TARGET_REFUSED",
    "UNKNOWN_EVENT",
    "TOO_MANY_WEBHOOKS",
    "DELIVERY_NOT_FOUND",
    // The server's own failure.
    "INTERNAL",
];

/// The sentence for a refusal: the code's own, else one for its HTTP status; a refusal about
/// one look of a factory run, or one item of a pipeline, first says which.
pub(crate) fn hint(err: &studio_client::Error) -> String {
    hint_in(err, None)
}

/// [`hint`] for a refusal met by `command` (the subcommand's name), where the way out depends
/// on it: a take again re-develops at its source's quality, so a 402 there offers no
/// `--quality`.
pub(crate) fn hint_in(err: &studio_client::Error, command: Option<&str>) -> String {
    let (status, code) = match err {
        studio_client::Error::Api { status, code, .. } => (*status, code.as_str()),
        _ => (0, ""),
    };
    let sentence = match (code, command) {
        ("INSUFFICIENT_TOKENS", Some("takes")) => insufficient(err, false),
        _ => for_code(err, code).unwrap_or_else(|| for_status(status)),
    };
    match (err.extra_i64("lookIndex"), err.extra_i64("item")) {
        (Some(i), _) => format!("look {} of the input (lookIndex {i}): {sentence}", i + 1),
        (None, Some(i)) => format!("item {i} of the items (from 0): {sentence}"),
        (None, None) => sentence,
    }
}

/// The legal values a refusal lists in `field`, comma-separated.
fn legal(err: &studio_client::Error, field: &str) -> Option<String> {
    let values: Vec<&str> = err.extra(field)?.as_array()?.iter().filter_map(|v| v.as_str()).collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// A sentence for `code`, reading the extra fields it carries from `err`.
fn for_code(err: &studio_client::Error, code: &str) -> Option<String> {
    let max = |field: &str| err.extra_i64(field);
    Some(match code {
        "UNAUTHORIZED" => "run `studio login` (or `studio signup`): no key was sent, or the server does not know it \
                           (revoked, or minted on another deployment: check --url / STUDIO_URL)"
            .into(),
        "BAD_CREDENTIALS" => {
            "check the email and the password (--password, STUDIO_PASSWORD or stdin); `studio signup` creates an account"
                .into()
        }
        "EMAIL_TAKEN" => "that email already has an account: sign in with `studio login --email EMAIL`".into(),
        "WEAK_PASSWORD" => "choose a longer password: at least 10 characters".into(),
        "BAD_EMAIL" => "give a whole address, such as name@house.com, to --email".into(),
        "BAD_NAME" => "give a name of 1 to 100 characters".into(),
        "SESSION_REQUIRED" => "keys are minted and revoked from a signed-in session, never with a key: \
                               `studio keys mint NAME --email YOU` or `studio keys revoke ID --email YOU` \
                               signs in for that one call"
            .into(),
        "FORBIDDEN" => "your role does not allow this: a viewer key only reads, and only an owner or admin manages \
                        keys; use a member key (`studio keys mint NAME --role member`) or ask the house's owner"
            .into(),
        "BAD_ORIGIN" => "a signed-in write came from another site's page: use a key, or sign in again".into(),
        "role_cannot_spend_money" => {
            "only the house's owner, signed in to the studio, buys tokens or changes the plan; no key ever can".into()
        }
        "role_cannot_spend_tokens" => {
            "a viewer cannot spend tokens: use a member key (`studio keys mint NAME --role member`)".into()
        }
        "INSUFFICIENT_TOKENS" => insufficient(err, true),
        "UNKNOWN_TOOL" => "run `studio prices` for the tools this deployment runs".into(),
        "NO_IMAGE" => "give the image: to `studio develop` with --image PATH|ASSET_ID (or --input \
                       ROLE=PATH|ASSET_ID), to `studio ai remove-bg` as FILE"
            .into(),
        "EMPTY_IMAGE" => "the image is empty (0 bytes): check the file and give it again".into(),
        "NO_INPUTS" => "the job's inputs are gone from the library: develop it afresh with `studio develop`".into(),
        "NOT_DEVELOPED" => {
            "only landed (done) frames can be taken again; see `studio jobs show ID`, or wait with `studio jobs watch`"
                .into()
        }
        "IDEMPOTENCY_KEY_REUSED" => {
            "that idempotency key was used for a different request; use a new --idempotency-key".into()
        }
        "BAD_QUALITY" => "--quality is 1k, 2k or 4k".into(),
        "BAD_PARAMS" => "check the --param K=V options: the message names the option and the forms it accepts \
                         (`output` is not one: results are filed in the library); nothing was held"
            .into(),
        "BAD_SINCE" => "--since is a whole number from 0 (an eventSeq, as `studio jobs ls` shows)".into(),
        "BAD_STATE" => "a run's state filter is active or all: `studio runs ls [--active]`".into(),
        "BAD_STATUS" => "a status is one of queued, running, done, failed, cancelled".into(),
        "BAD_LIMIT" => match max("max") {
            Some(max) => format!("--limit is 1 to {max}"),
            None => "--limit is out of range; see the command's --help".into(),
        },
        "ENQUEUE_FAILED" => "the develop was not queued and nothing was charged: run the same command again".into(),
        "SUBMIT_FAILED" => "the submit failed on the server and nothing was charged: run it again; \
                            if it keeps failing, tell the deployment's operator the time"
            .into(),
        "UPGRADE_REQUIRED" => "something between here and the server strips WebSocket upgrades (a proxy?): \
                               poll with `studio jobs ls --since N` instead of `studio jobs watch`"
            .into(),
        "DEVELOP_FAILED" => "nothing was charged: try again, or with another input or --quality".into(),
        "DEVELOP_CANCELLED" => "someone cancelled it and its hold was released: develop it again if it is wanted, \
                                or see `studio jobs show ID`"
            .into(),
        "NO_FILE" => "the upload carried no file: name image files or directories to `studio upload`".into(),
        "EMPTY_FILE" => "the file is empty (0 bytes): check it and upload it again".into(),
        "UNSUPPORTED_TYPE" => "upload JPEG, PNG, WebP or GIF images: convert the file first".into(),
        "IMAGE_TOO_LARGE" => match max("maxMb") {
            Some(max) => format!("each image is at most {max} MB: downsize it or export it as JPEG"),
            None => "the image is too large (12 MB at most): downsize it or export it as JPEG".into(),
        },
        "BAD_IMAGE" => "the image could not be decoded: check it opens, or export it again as JPEG or PNG".into(),
        "BAD_KIND" => "--kind is one of clothes, accessory, jewelry, model, background".into(),
        "BAD_SKU" => "a SKU is a short code of printable ASCII characters: check --sku".into(),
        "NAME_REQUIRED" if max("lookIndex").is_some() => "give the look a name of 1 to 120 characters".into(),
        "NAME_REQUIRED" => "give the collection (or model) a name".into(),
        "BAD_FOLDER" => "that collection is not this house's: pick an id from `studio folders ls`".into(),
        "BAD_ASSET_IDS" => match max("max") {
            Some(max) => format!("name 1 to {max} distinct asset ids (see `studio assets ls`); split larger batches"),
            None => "name one or more distinct asset ids, from `studio assets ls`".into(),
        },
        "BAD_OPERATION" => "the operation is remove-background or packshot".into(),
        "NOT_FOUND" => "the id names nothing in this house (unknown, another house's, or deleted): list what there \
                        is with `studio assets ls`, `folders ls`, `jobs ls`, `runs ls`, `pipeline ls` or `keys ls`"
            .into(),
        "BAD_SIZES" => "--size is NAME:WxH with 16 to 8192 px a side, names distinct, at most 8 sizes".into(),
        "BAD_RANGE" => "the download asked for bytes outside the archive: run `studio pack` again".into(),
        "PACK_NOT_READY" => "the pack is still being built: `studio pack` waits for it, so run it again".into(),
        "PACK_FAILED" => "the archive could not be built (an original may be missing): pack again, \
                          leaving out any asset that fails on its own"
            .into(),
        "PACK_EXPIRED" => "pack links live 7 days: run `studio pack` again for a fresh one".into(),
        "PACK_TOO_LARGE" => "a pack holds at most 700 frames and 4 GiB: split the selection over several \
                             `studio pack` runs"
            .into(),
        "AI_NOT_CONFIGURED" => "this deployment has no AI reader and nothing was charged: upload without --classify \
                                (the `studio ai` reads, prompt tools and `studio chat` need one), or ask the operator to configure one"
            .into(),
        "AI_FAILED" => "the AI read failed upstream and nothing was charged: try again in a while".into(),
        "ASSET_NOT_FOUND" => "an input asset is not in this house's library: pick ids from `studio assets ls`".into(),
        "IMAGE_REQUIRED" => "name the image: a file, or an asset id (`studio assets ls`); `studio ai segment` and \
                             `face` take an asset id or a local file they upload first"
            .into(),
        "IMAGES_REQUIRED" => "send at least one image to check".into(),
        "TOO_MANY_IMAGES" => "a pre-flight checks at most 6 images: split them into several checks".into(),
        "BAD_LENS" => "the lens is `casting look` or `build sheet`, or none for the garment questions".into(),
        "REDRAW_FUTILE" => "a redraw cannot help this frame (nothing was charged): fix the input and develop again"
            .into(),
        "VERDICT_UNREADABLE" | "INPUT_UNREADABLE" | "RESULT_UNREADABLE" => {
            "the frame or its input could not be read (nothing was charged): develop it afresh from a good input".into()
        }
        "BAD_BODY" | "BAD_FORM" | "BAD_PATH" => "the server could not read the request: check the arguments \
                                                 (`studio COMMAND --help`), and update the CLI if it is older \
                                                 than the server"
            .into(),
        "BAD_AMOUNT" => "an amount must be at least one token (or, at checkout, a positive sum)".into(),
        "BAD_TOKENS" | "BAD_EXPIRY" | "USER_REQUIRED" | "USER_NOT_FOUND" => {
            "an admin grant names a person (userId), whole tokens within the limit, and expiryDays or none".into()
        }
        "BAD_PACK" => "a token pack is pack_250, pack_1000 or pack_3000".into(),
        "BAD_TIER" => "a plan is studio, editorial or couture".into(),
        "AMOUNT_OUT_OF_RANGE" => match (max("minCents"), max("maxCents")) {
            (Some(min), Some(max)) => {
                format!("a custom top-up is {} to {} dollars", dollars(min), dollars(max))
            }
            _ => "a custom top-up is from the cheapest pack's price to 5,000 dollars".into(),
        },
        "CHECKOUT_FAILED" | "PORTAL_FAILED" | "PORTAL_NO_URL" | "charge_failed" => {
            "the payment provider failed and nothing was charged: try again in a while".into()
        }
        "BILLING_NOT_CONFIGURED" => "this deployment takes no payments: ask its operator for tokens".into(),
        "NO_CUSTOMER" => "the house has not paid yet, so there is no billing account: buy a pack first".into(),
        "BAD_THRESHOLD" | "BAD_CAP" | "CAP_BELOW_REFILL" => {
            "auto top-up needs a threshold in whole tokens and a monthly cap of at least one refill".into()
        }
        "AMBIGUOUS_PACK_PRICE" => "two packs have the same price: name the pack to refill with".into(),
        "BAD_SIGNATURE" if err.status() == Some(403) => {
            "the result link was altered or cut short: use the URL exactly as the lane answered it".into()
        }
        "UNPARSEABLE" | "BAD_SIGNATURE" | "APPLY_FAILED" => {
            "a payment provider's delivery was refused; the provider retries it by itself".into()
        }
        "LOOK_LOCKED" => "the look is locked: unlock it before developing it again".into(),
        "LOCK_REQUIRED" => "variations need a locked look: lock it first".into(),
        "DEVELOP_IN_FLIGHT" => {
            "a develop of this look is still queued or rendering: wait (`studio looks show ID`) or cancel its run \
             (`studio runs ls`)"
                .into()
        }
        "NOT_A_LOOK_FRAME" => "lock on a landed frame of this look's develop-lock or variations (`studio looks show ID`)".into(),
        "ASSET_REQUIRED" => "name the image by its asset id (the frame to lock on, or a mark uploaded first with \
                             `studio upload FILE`)"
            .into(),
        "UNKNOWN_DESTINATION" => match legal(err, "destinations") {
            Some(list) => format!("--destination is one of {list}"),
            None => "--destination names a place from `GET /api/toolkit/lookbook/vocabulary`".into(),
        },
        "BAD_DIMENSIONS" => "custom needs --width and --height in pixels; a named place carries its own".into(),
        "OUTPUT_TOO_LARGE" => match max("max") {
            Some(max) => format!("an output is at most {max} px a side"),
            None => "the output is larger than this studio develops".into(),
        },
        "QUALITY_TOO_LOW_FOR_OUTPUT" => match err.extra_str("lowest") {
            Some("4k") => "develop at --quality 4k for this destination (it may add a restoration pass)".into(),
            Some(q) => format!("develop at --quality {q} or higher for this destination"),
            None => "develop at a higher --quality for this destination (`studio prices`)".into(),
        },
        "LOOKBOOK_NOT_CONFIGURED" => "this deployment runs no lookbook tool (`studio prices` lists its tools)".into(),
        "BAD_PLAN" => "fix the plan file: a name and 1 to 16 nodes, each {id, tool, quality?, params?, inputs} with \
                       every input naming an item key (`item`) or another node (`node`), ids unique, no cycle; \
                       `studio prices` lists the tools (docs/cli.md shows a plan)"
            .into(),
        "BAD_ITEMS" => "items are a JSON array of objects of key to asset id (--items FILE), or --item \
                        KEY=ASSET_ID,... once per item; the keys are those the plan's `item` inputs name"
            .into(),
        "LINE_TOO_WIDE" => match (max("frames"), max("max")) {
            (Some(frames), Some(max)) => {
                format!("this line holds {frames} frames and one run holds at most {max}: split the items over runs")
            }
            _ => "the line holds too many frames for one run: split the items over several runs".into(),
        },
        "PRESET_NOT_FOUND" => "no pipeline preset of this house has that id: `studio pipeline presets ls` lists them, \
                               or run a plan file with --plan FILE"
            .into(),
        "PIPELINE_FAILED" => "no frame landed, and a failed frame costs nothing: `studio pipeline show RUN_ID` \
                              says why each step failed"
            .into(),
        "PIPELINE_SETTLED" => "the frames that landed are in the library and charged; the others cost nothing: \
                               `studio pipeline show RUN_ID` lists which and why"
            .into(),
        "PIPELINE_CANCELLED" => "the run was cancelled and its undeveloped frames released; frames that landed \
                                 stay (`studio pipeline show RUN_ID`)"
            .into(),
        "BAD_JSON" => "the body is not the JSON this route takes: check the arguments (`studio brand set --help`, \
                       `studio ai --help`), and update the CLI if it is older than the server"
            .into(),
        "NO_IMAGES" => "give 1 to 10 images (files or asset ids) to read the brand from".into(),
        "SET_TOO_LARGE" => match max("maxMb") {
            Some(mb) => format!("a read's images are at most {mb} MB together: send fewer or smaller ones"),
            None => "send fewer or smaller images".into(),
        },
        "AI_BAD_OUTPUT" => "the AI reader answered something the studio could not use (a brand profile, a read, \
                            a prompt); nothing was charged: try again, perhaps with another image or wording"
            .into(),
        "BAD_MATERIAL" => "give --material (1 to 60 characters, e.g. \"woven label\"); it cannot be cleared".into(),
        "BAD_PLACEMENT" => "a placement is at most 120 characters".into(),
        "BAD_NOTE" => "a note is at most 500 characters".into(),
        "ALREADY_REGISTERED" => "that image is already a mark at this level: `studio brand marks ls` lists them \
                                 (`marks set` changes one)"
            .into(),
        "COLLECTION_NOT_FOUND" => "no collection of this house has that id: `studio folders ls` lists them".into(),
        "role_cannot_edit_marks" => "a viewer cannot edit the house's marks: use a member's key".into(),
        "ASSETS_REQUIRED" => "name the pieces to plan by their asset ids (see `studio assets ls`)".into(),
        "LOOKS_REQUIRED" => "the input holds no looks: run `studio factory plan IDS... --json` for some".into(),
        "TOO_MANY_LOOKS" => match max("max") {
            Some(max) => format!("a run drafts at most {max} looks: split the input into several runs"),
            None => "too many looks at once: split the input into several runs".into(),
        },
        "MODEL_REQUIRED" => "give the model's asset id with --model".into(),
        "BAD_AESTHETIC" => match legal(err, "presets") {
            Some(list) => format!("--aesthetic is one of {list}"),
            None => "--aesthetic is one of the composer's presets".into(),
        },
        "ITEMS_REQUIRED" => "a look needs at least one piece in itemAssetIds".into(),
        "TOO_MANY_ITEMS" => match max("max") {
            Some(max) => format!("a look holds at most {max} pieces: split it"),
            None => "the look holds too many pieces: split it".into(),
        },
        "BAD_ITEM" => match legal(err, "roles") {
            Some(list) => format!("each piece is {{assetId, role}}, named once, with a role among {list}"),
            None => "each piece is {assetId, role}, named once, with a known role".into(),
        },
        "BAD_BACKGROUND" => match legal(err, "presets") {
            Some(list) => format!("a background is {{kind: preset, value}} with a value among {list}, or {{kind: asset, assetId}}"),
            None => "a background is {kind: preset, value} or {kind: asset, assetId}".into(),
        },
        "KEYS_REQUIRED" => "name at least one variation key".into(),
        "TOO_MANY_FRAMES" => match max("max") {
            Some(max) => format!("at most {max} variation frames at once"),
            None => "too many variation frames at once".into(),
        },
        "UNKNOWN_VARIATION" => match legal(err, "keys") {
            Some(list) => format!("a variation key is one of {list}"),
            None => "use the variation keys of `GET /api/toolkit/lookbook/vocabulary`".into(),
        },
        "ALREADY_YOURS" => "the house already has this model (its own, or held): nothing to buy; \
                            `studio models show ID` says whether develops may cast it"
            .into(),
        "FREE_MODEL" => "this model is free: take it with `studio models take ID`, no checkout needed".into(),
        "NOT_FOR_SALE" => "the catalog no longer offers it (retired, or never priced): `studio models explore` lists \
                           what is on offer"
            .into(),
        "TAKEN" => "another house holds or is buying this exclusive face; a claim that lapses unpaid frees it, so \
                    look again later (`studio models explore`)"
            .into(),
        "CHECKOUT_PENDING" => "the house's checkout for it is still being created: run the same command again in a \
                               moment for its URL (`studio models owned` lists open checkouts)"
            .into(),
        "ALREADY_MEMBER" => "that person already sits in this house: `studio seats ls` shows their role".into(),
        "OWNER_SEAT_OWNER_ONLY" => "only the owner offers the owner seat; invite with --role admin instead".into(),
        "INVITE_LIMIT" => match max("limit") {
            Some(n) => format!("this house has sent {n} seat invitations in the last 7 days; try again later"),
            None => "this house has sent its seat invitations for the week; try again later".into(),
        },
        "INVITATION_NOT_FOUND" => "that invitation is not open (accepted, replaced by a newer one, or expired): \
                                   ask for a new one"
            .into(),
        "EMAIL_MISMATCH" => "the invitation went to another address: sign in with that address".into(),
        "EMAIL_UNVERIFIED" => "confirm your email first (the link in the verification letter), then accept".into(),
        "BAD_ROLE" => "a seat's role is admin, member or viewer; the house changes hands by transfer".into(),
        "CANNOT_RESEAT_SELF" => "nobody changes their own seat: ask the owner or an admin".into(),
        "SEAT_NOT_FOUND" => "that person has no seat in this house: `studio seats ls` lists the user ids".into(),
        "FOUNDER_SEAT" => "the founder of a personal house keeps their seat".into(),
        "OWNER_MUST_TRANSFER" => "the owner's seat is never removed: hand the house over first".into(),
        "OWNERSHIP_CHANGED" => "the house's seats changed meanwhile: list them again and retry".into(),
        "ALREADY_OWNER" => "you already own this house: name another seat's user id".into(),
        "HOUSE_NOT_FOUND" => "you have no seat in that house: `studio house ls` lists yours".into(),
        "MEMORY_NOT_FOUND" => "no active memory you can see has that id: `studio memory ls --active`".into(),
        "BAD_STATEMENT" => "a memory is a statement of 1 to 2000 characters".into(),
        "BAD_CONFIDENCE" => "confidence is a number from 0 to 1".into(),
        "NO_ACTIVE_PLAN" => "this house has no plan that renews: `studio account` shows it".into(),
        "CANCEL_FAILED" => "the payment provider did not confirm the cancellation and the plan is unchanged: \
                            try again later, or use the billing portal"
            .into(),
        "TARGET_REQUIRED" => "say what to cut: `studio ai segment FILE --box x0,y0,x1,y1`, `--point x,y` or \
                              `--label TEXT`"
            .into(),
        "BAD_TARGET" => "--box is x0,y0,x1,y1 and --point x,y, in pixels of the upright image and inside it \
                         (x1 above x0, y1 above y0); --label is a few words"
            .into(),
        "VIBE_REQUIRED" => "give the mood: `studio ai prompt keywords VIBE` (at most 500 characters)".into(),
        "DESCRIPTION_REQUIRED" => {
            "say what is being shot: `studio ai prompt shots DESCRIPTION` (at most 2,000 characters)".into()
        }
        "SUBJECT_REQUIRED" => "say what the picture shows: `studio ai prompt build SUBJECT` (at most 2,000 characters)".into(),
        "PROMPT_REQUIRED" => "give the prompt to improve: `studio ai prompt enhance PROMPT` (at most 4,000 characters)".into(),
        "BAD_COUNT" => match max("max") {
            Some(max) => format!("--count is 1 to {max} shots"),
            None => "--count is 1 to 12 shots".into(),
        },
        "AI_NEEDS_BILLING" => {
            let left = match (max("need"), max("spendable")) {
                (Some(need), Some(spendable)) => {
                    let noun = if need == 1 { "token" } else { "tokens" };
                    format!("it needs {need} {noun} and {spendable} are spendable; ")
                }
                _ => String::new(),
            };
            format!(
                "{left}nothing was charged, and the house has never paid, so nothing refills it: the owner buys \
                 tokens once (`studio billing topup PACK` signs in for the call); see `studio balance`"
            )
        }
        "BAD_IMAGE_URL" => "name the image by an asset id of this house (`ast_…`, from `studio assets ls`) or a \
                            local file to upload first; other addresses are never fetched"
            .into(),
        "LINK_EXPIRED" if err.status() == Some(403) => {
            "a screenshot link lives 7 days: open the thread again (or ask support) for a fresh one".into()
        }
        "LINK_EXPIRED" => "a lane's result link lives 15 minutes: run the command again for a fresh one".into(),
        "TOO_LONG" => match max("max") {
            Some(max) => format!("that text is at most {max} characters: shorten it"),
            None => "that text is too long: shorten it".into(),
        },
        "DEPTH_FAILED" => "the depth model failed upstream and nothing was charged: try again in a while, or with \
                           another image"
            .into(),
        "SEGMENT_FAILED" => "the cut failed upstream and nothing was charged: try again, or with another --box, \
                             --point or --label"
            .into(),
        "REMOVE_BG_FAILED" => "removing the background failed and nothing was charged: try again in a while, or \
                               with another image"
            .into(),
        "FAL_NOT_CONFIGURED" => "this deployment runs no fal models (STUDIO_FAL_KEY is unset), so depth and cutting \
                                 by --label are off and nothing was charged: segment by --box or --point, or ask \
                                 the operator to configure fal"
            .into(),
        "INVALID_TOKEN" => "copy the whole link from the letter: this token is not one the server issued".into(),
        "TOKEN_USED" => "this link worked once already; ask for a new letter if you still need one".into(),
        "TOKEN_REPLACED" => "a newer letter was sent: use the link of the latest one".into(),
        "TOKEN_EXPIRED" => "the link has expired: ask for a new letter (verification 48 hours, reset 1 hour)".into(),
        "TOKEN_STALE" => "the account's address changed since this letter: ask for a new one".into(),
        "BAD_CURSOR" => "pass the nextCursor of the previous page unchanged, or leave the cursor out".into(),
        "QUERY_REQUIRED" => "say what to look for with letters or digits, e.g. `studio search silk dress`".into(),
        "BAD_KINDS" => "--kinds is a comma list of asset, look, model, memory, ticket, preset (or leave it out to \
                        search them all)"
            .into(),
        "BAD_WEBHOOK_URL" => "give an https:// URL whose host resolves to a public address (http only to \
                              127.0.0.1 or ::1, and only where the deployment allows it)"
            .into(),
        "WEBHOOK_TARGET_REFUSED" => "that host resolves to a private, loopback, link-local or metadata address, which \
                                     deliveries never reach: give the endpoint a public address"
            .into(),
        "UNKNOWN_EVENT" => "--events is a comma list of job, pack.ready, or * for every kind".into(),
        "TOO_MANY_WEBHOOKS" => "the house keeps as many endpoints as it may: remove one first (`studio webhooks ls`, \
                                `studio webhooks rm ID`)"
            .into(),
        "DELIVERY_NOT_FOUND" => "that delivery id was never sent to this endpoint: list its log with `studio webhooks \
                                 deliveries ID` and pass a deliveryId (msg_...) from it"
            .into(),
        "MAIL_WEBHOOK_NOT_CONFIGURED" => "the deployment sets no STUDIO_MAIL_WEBHOOK_SECRET, so it takes no \
                                          delivery reports"
            .into(),
        "TOO_LITTLE_SAID" => format!(
            "say what happened in at least {} characters: what you did, what you saw, what you expected",
            max("minChars").unwrap_or(10)
        ),
        "BAD_TOPIC" => "--topic is one of develop, billing, identity, quality, access, api, other".into(),
        "BAD_RATING" => "a rating is a whole number from 1 to 5".into(),
        "BAD_SCREENSHOTS" => "attach at most 6 screenshots (`--screenshot FILE`), each a link under 2,048 characters"
            .into(),
        "THREAD_UNAVAILABLE" => "that thread is not one of yours: `studio support ls` lists yours (a key reads the \
                                 threads of the person who minted it)"
            .into(),
        "SCREENSHOT_GONE" => "screenshots are kept 30 days and this one is gone: attach it again".into(),
        "UNSUPPORTED_MEDIA_TYPE" => "send an image (PNG, JPEG, WebP or GIF)".into(),
        "CHAT_SESSION_NOT_FOUND" => "that session is not one of yours: `studio chat ls` lists yours (a key chats as \
                                     the person who minted it)"
            .into(),
        "SESSION_ESCALATED" => "this session was handed to support: follow it with `studio support ls`, or start a \
                                new one with `studio chat`"
            .into(),
        "ACTION_NOT_FOUND" => "that session proposed no such action: `studio chat show SESSION_ID` lists its actions"
            .into(),
        "ACTION_IN_PROGRESS" => "another apply of this action is still running: wait a moment and ask again; it \
                                 runs once either way"
            .into(),
        "MESSAGE_REQUIRED" => "say something: the message is empty".into(),
        "INTERNAL" => "the server failed and logged it: try again, and if it persists tell the deployment's \
                       operator the time"
            .into(),
        _ => return None,
    })
}

/// The 402 sentence: what it needs, what is spendable, what to do.
fn insufficient(err: &studio_client::Error, lower_quality: bool) -> String {
    let what_to_do = if lower_quality {
        "nothing was held or charged. Top up from the owner's signed-in session in the studio, wait for held \
         tokens to settle (`studio balance`), or develop at a lower --quality (`studio prices`)"
    } else {
        "nothing was held or charged. A take develops at its source's quality: top up from the owner's \
         signed-in session in the studio, wait for held tokens to settle (`studio balance`), or take fewer \
         frames at once"
    };
    match (err.extra_i64("need"), err.extra_i64("spendable")) {
        (Some(need), Some(spendable)) => format!(
            "this needs {need} tokens and the house has {spendable} spendable ({} short); {what_to_do}",
            (need - spendable).max(0)
        ),
        _ => format!("the house has too few spendable tokens; {what_to_do}"),
    }
}

/// `1000` cents as `10`, `1050` as `10.50`.
fn dollars(cents: i64) -> String {
    if cents % 100 == 0 { format!("{}", cents / 100) } else { format!("{}.{:02}", cents / 100, cents % 100) }
}

/// A sentence for a code this CLI does not know, by the class its status names.
fn for_status(status: u16) -> String {
    match status {
        400 => "the server refused the input: check the arguments (`studio COMMAND --help`)",
        401 => "run `studio login`: the key is missing, unknown or revoked",
        402 => "the house has too few spendable tokens: see `studio balance`",
        403 => "your role or key does not allow this: ask the house's owner",
        404 => "the id names nothing in this house: list what there is with the command's `ls`",
        409 => "it conflicts with the current state: look again (`ls` / `show`) and retry",
        413 => "it is too large: send less at once",
        422 => "the server cannot run it as asked: check the inputs and options",
        429 => "too many requests: wait a minute and try again",
        502 => "an upstream service failed and nothing was charged: try again in a while",
        503 => "this deployment has not configured that feature: ask its operator",
        500..=599 => "the server failed: try again, and if it persists tell the deployment's operator the time",
        _ => "see `studio --help`, or the server's message above",
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(status: u16, code: &str, extra: serde_json::Value) -> studio_client::Error {
        studio_client::Error::Api {
            status,
            code: code.into(),
            message: "m".into(),
            extra: extra.as_object().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn every_code_has_its_own_sentence() {
        let mut seen = std::collections::HashSet::new();
        for code in CODES {
            assert!(seen.insert(*code), "{code} listed twice");
            let err = api(400, code, serde_json::json!({}));
            let sentence = for_code(&err, code).unwrap_or_else(|| panic!("{code} has no sentence"));
            assert!(!sentence.is_empty() && !sentence.ends_with('.'), "{code}: {sentence}");
        }
        assert_eq!(
            for_code(&api(400, "NAME_REQUIRED", serde_json::json!({})), "NAME_REQUIRED").unwrap(),
            "give the collection (or model) a name"
        );
    }

    #[test]
    fn a_refusal_about_one_look_says_which_with_the_legal_values() {
        let err = api(400, "BAD_ITEM", serde_json::json!({"lookIndex": 2, "roles": ["dress", "top"]}));
        assert_eq!(
            hint(&err),
            "look 3 of the input (lookIndex 2): each piece is {assetId, role}, named once, with a role among dress, top"
        );
        let err = api(400, "NAME_REQUIRED", serde_json::json!({"lookIndex": 0}));
        assert_eq!(hint(&err), "look 1 of the input (lookIndex 0): give the look a name of 1 to 120 characters");
    }

    #[test]
    fn a_pipeline_refusal_says_which_item_and_how_wide() {
        let err = api(404, "ASSET_NOT_FOUND", serde_json::json!({"item": 1}));
        assert!(hint(&err).starts_with("item 1 of the items (from 0): an input asset"), "{}", hint(&err));
        let err = api(422, "LINE_TOO_WIDE", serde_json::json!({"frames": 900, "max": 700}));
        assert_eq!(hint(&err), "this line holds 900 frames and one run holds at most 700: split the items over runs");
    }

    #[test]
    fn the_ai_lanes_say_which_command_and_flag() {
        let err = api(402, "AI_NEEDS_BILLING", serde_json::json!({"need": 1, "spendable": 0}));
        assert!(
            hint(&err).starts_with("it needs 1 token and 0 are spendable; nothing was charged, and the house"),
            "{}",
            hint(&err)
        );
        assert!(hint(&api(400, "TARGET_REQUIRED", serde_json::json!({}))).contains("--box x0,y0,x1,y1"));
        assert_eq!(hint(&api(400, "BAD_COUNT", serde_json::json!({"max": 12}))), "--count is 1 to 12 shots");
        assert!(hint(&api(503, "FAL_NOT_CONFIGURED", serde_json::json!({}))).contains("STUDIO_FAL_KEY"));
        // A result link's bad signature (403) is not a payment delivery's (401).
        assert!(hint(&api(403, "BAD_SIGNATURE", serde_json::json!({}))).starts_with("the result link"));
        assert!(hint(&api(401, "BAD_SIGNATURE", serde_json::json!({}))).starts_with("a payment provider's"));
    }

    #[test]
    fn a_402_says_need_and_spendable() {
        let err = api(402, "INSUFFICIENT_TOKENS", serde_json::json!({"need": 9, "spendable": 5}));
        let text = hint(&err);
        assert!(text.starts_with("this needs 9 tokens and the house has 5 spendable (4 short); "), "{text}");
        assert!(text.contains("nothing was held or charged. Top up"), "{text}");
    }

    #[test]
    fn extra_fields_are_read_and_unknown_codes_fall_back_on_the_status() {
        let err = api(413, "IMAGE_TOO_LARGE", serde_json::json!({"maxMb": 12}));
        assert!(hint(&err).starts_with("each image is at most 12 MB"));
        let err = api(400, "AMOUNT_OUT_OF_RANGE", serde_json::json!({"minCents": 1000, "maxCents": 500050}));
        assert_eq!(hint(&err), "a custom top-up is 10 to 5000.50 dollars");
        assert!(hint(&api(429, "SLOW_DOWN", serde_json::json!({}))).starts_with("too many requests"));
        assert!(hint(&api(599, "NEW_THING", serde_json::json!({}))).starts_with("the server failed"));
    }
}
