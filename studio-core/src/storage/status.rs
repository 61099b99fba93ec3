//! Row statuses as enums: each is stored as its wire name in a TEXT column (with a CHECK
//! constraint), bound and decoded through these impls, so a status read from a row is one of
//! the named states or the read fails, and a state is never compared as a string.

use crate::api::{FindingStatus, JobStatus, LookStatus, MemoryStatus};

/// Stores a status enum as its wire name: it needs `as_str(self) -> &'static str` and
/// `parse(&str) -> Option<Self>`.
macro_rules! text_column {
    ($($ty:ty),* $(,)?) => {$(
        impl<DB: sqlx::Database> sqlx::Type<DB> for $ty
        where
            String: sqlx::Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <String as sqlx::Type<DB>>::type_info()
            }

            fn compatible(ty: &DB::TypeInfo) -> bool {
                <String as sqlx::Type<DB>>::compatible(ty)
            }
        }

        impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for $ty
        where
            &'q str: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as sqlx::Database>::ArgumentBuffer<'q>,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&'q str as sqlx::Encode<'q, DB>>::encode(self.as_str(), buf)
            }
        }

        impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for $ty
        where
            &'r str: sqlx::Decode<'r, DB>,
        {
            fn decode(value: <DB as sqlx::Database>::ValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
                let text = <&'r str as sqlx::Decode<'r, DB>>::decode(value)?;
                <$ty>::parse(text).ok_or_else(|| format!("{text:?} is not a {}", stringify!($ty)).into())
            }
        }
    )*};
}

/// Declares a status enum with its wire names.
macro_rules! statuses {
    ($($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $wire:literal,)* })*) => {$(
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $variant,)*
        }

        impl $name {
            /// Every state.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The wire name (what the column holds).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)*
                }
            }

            /// The state a wire name names.
            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $($wire => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        text_column!($name);
    )*};
}

statuses! {
    /// The state of a hold.
    HoldStatus {
        /// Reserved, not yet resolved.
        Held = "held",
        /// Charged.
        Settled = "settled",
        /// Returned to the buckets it came from.
        Released = "released",
    }

    /// The state of a pipeline run.
    RunStatus {
        /// Frames are still being made.
        Developing = "developing",
        /// Every frame ended; the hold is being settled.
        Done = "done",
        /// The hold settled for the frames made.
        Settled = "settled",
        /// Nothing could be made.
        Failed = "failed",
        /// Cancelled; what never started was released.
        Cancelled = "cancelled",
    }

    /// The state of one frame of a pipeline run.
    StepStatus {
        /// Waiting for its inputs.
        Waiting = "waiting",
        /// Its job exists.
        Started = "started",
        /// It could not start.
        Failed = "failed",
        /// Cancelled before it started.
        Cancelled = "cancelled",
    }

    /// The state of a pack.
    PackStatus {
        /// Waiting for a builder.
        Queued = "queued",
        /// Being built.
        Building = "building",
        /// Ready to download.
        Ready = "ready",
        /// The build failed.
        Failed = "failed",
        /// Past its time; the file is gone.
        Expired = "expired",
    }

    /// The state of a checkout (a purchase of tokens or a model).
    CheckoutStatus {
        /// Opened at the payment provider, not yet paid.
        Open = "open",
        /// An auto top-up the provider accepted, waiting for its payment to land.
        Charged = "charged",
        /// Paid; what it bought was granted.
        Paid = "paid",
        /// The payment failed (or the charge was refused).
        Failed = "failed",
    }

    /// The state of a seat invitation.
    SeatInvitationStatus {
        /// Sent, not yet answered.
        Pending = "pending",
        /// The invitee took the seat.
        Accepted = "accepted",
        /// A newer invitation to the same address replaced it.
        Superseded = "superseded",
        /// The house withdrew it.
        Withdrawn = "withdrawn",
    }


    /// The state of a claim on a priced model.
    ClaimStatus {
        /// Checkout open, the model reserved for the house.
        Pending = "pending",
        /// Paid: the house holds the model.
        Paid = "paid",
        /// Given up before payment.
        Released = "released",
        /// The checkout ran out of time.
        Expired = "expired",
        /// Paid, but no holding came of it (an entitlement case records the payment).
        Lapsed = "lapsed",
    }

    /// The state of an entitlement case (a payment that could not become a holding).
    CaseStatus {
        /// Waiting for the platform to refund it.
        Review = "review",
        /// Refunded.
        Refunded = "refunded",
    }

    /// The state of a support ticket.
    TicketStatus {
        /// Not yet read by support.
        New = "new",
        /// Being worked on.
        Open = "open",
        /// Waiting for the person's answer.
        Pending = "pending",
        /// Waiting on something else.
        OnHold = "on_hold",
        /// Done.
        Resolved = "resolved",
    }

    /// The state of an assistant conversation.
    ChatSessionStatus {
        /// The assistant answers.
        Open = "open",
        /// Handed to a person (a support ticket).
        Escalated = "escalated",
    }

    /// The state of an action the assistant proposed.
    ChatActionStatus {
        /// Waiting for the person's confirmation.
        Proposed = "proposed",
        /// Confirmed and being applied (claimed once).
        Applying = "applying",
        /// Applied.
        Applied = "applied",
    }

    /// The state of a webhook delivery (one event to one endpoint).
    DeliveryStatus {
        /// Attempts remain.
        Pending = "pending",
        /// The receiver answered 2xx.
        Delivered = "delivered",
        /// The schedule ran out, or the receiver answered 410.
        Failed = "failed",
        /// The endpoint was disabled or deleted before it was sent.
        Dropped = "dropped",
    }

    /// The state of a replay render.
    RenderStatus {
        /// Waiting for a renderer.
        Queued = "queued",
        /// Claimed by a renderer.
        Rendering = "rendering",
        /// The file is stored.
        Complete = "complete",
        /// The renderer gave up.
        Failed = "failed",
    }

    /// The state of an experiment (its moves: docs/internal.md).
    ExperimentStatus {
        /// Created, not yet started.
        Draft = "draft",
        /// Running.
        Running = "running",
        /// Paused.
        Paused = "paused",
        /// No new subjects enter; those already in keep their variant.
        ExposureFrozen = "exposure_frozen",
        /// Stopped (final).
        Stopped = "stopped",
        /// Complete (final).
        Complete = "complete",
    }

    /// The state of a request to be let in: derived when read (an invitation exists for the
    /// address or not), never stored.
    InviteRequestStatus {
        /// No invitation for the address yet.
        Pending = "pending",
        /// An invitation exists for the address.
        Invited = "invited",
    }

    /// The state of a letter (the archive row that is also the outbox entry).
    LetterStatus {
        /// Waiting for a worker to send it.
        Queued = "queued",
        /// The SMTP server accepted it.
        Sent = "sent",
        /// Given up.
        Failed = "failed",
        /// The provider reported it delivered.
        Delivered = "delivered",
        /// The provider reported it bounced.
        Bounced = "bounced",
        /// The recipient marked it as spam.
        Complained = "complained",
    }
}

text_column!(JobStatus, LookStatus, FindingStatus, MemoryStatus);

/// Shows a wire enum kept in `api` as its wire name, as `statuses!` does for its own.
macro_rules! display_as_wire_name {
    ($($ty:ty),* $(,)?) => {$(
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}

display_as_wire_name!(JobStatus, LookStatus, FindingStatus, MemoryStatus);

#[cfg(test)]
mod tests {
    use super::*;

    fn serde_name<T: serde::Serialize>(v: T) -> String {
        serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }

    /// A wire enum stored through `text_column!` is stored as the word its JSON carries.
    #[test]
    fn wire_enums_are_stored_as_their_serde_names() {
        for s in FindingStatus::ALL {
            assert_eq!((serde_name(s), FindingStatus::parse(s.as_str())), (s.as_str().to_string(), Some(s)));
        }
        for s in MemoryStatus::ALL {
            assert_eq!((serde_name(s), MemoryStatus::parse(s.as_str())), (s.as_str().to_string(), Some(s)));
        }
    }
}
