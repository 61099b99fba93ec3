//! Row statuses as enums: each is stored as its wire name in a TEXT column (with a CHECK
//! constraint), bound and decoded through these impls, so a status read from a row is one of
//! the named states or the read fails, and a state is never compared as a string.

use crate::api::{JobStatus, LookStatus};

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
}

text_column!(JobStatus, LookStatus);

impl std::fmt::Display for JobStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for LookStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
