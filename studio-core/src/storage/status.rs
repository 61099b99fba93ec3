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
