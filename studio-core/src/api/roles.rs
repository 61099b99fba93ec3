//! Closed vocabularies that travel on the wire: seat roles, key roles and develop qualities.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A seat's role in a house (organization). Ordered from most to least powerful.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SeatRole {
    /// Holds the money: checkout, portal, auto top-up arming, plan.
    Owner,
    /// Manages keys and seats; spends tokens.
    Admin,
    /// Spends tokens; reads everything.
    Member,
    /// Reads the library; never spends and never empties it.
    Viewer,
}

/// The role an organization key carries. A key is never more than a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyRole {
    /// Reads only.
    Viewer,
    /// Reads and spends tokens (never money).
    #[default]
    Member,
}

/// The output size of a develop: the long edge of the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Quality {
    /// 1,024 px on the long edge.
    #[serde(rename = "1k")]
    K1,
    /// 2,048 px on the long edge.
    #[serde(rename = "2k")]
    K2,
    /// 4,096 px on the long edge.
    #[serde(rename = "4k")]
    K4,
}

/// A role or quality string that is not in the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseRoleError(pub String);

impl fmt::Display for ParseRoleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown value {:?}", self.0)
    }
}

impl std::error::Error for ParseRoleError {}

impl SeatRole {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SeatRole::Owner => "owner",
            SeatRole::Admin => "admin",
            SeatRole::Member => "member",
            SeatRole::Viewer => "viewer",
        }
    }
}

impl FromStr for SeatRole {
    type Err = ParseRoleError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "owner" => Ok(SeatRole::Owner),
            "admin" => Ok(SeatRole::Admin),
            "member" => Ok(SeatRole::Member),
            "viewer" => Ok(SeatRole::Viewer),
            other => Err(ParseRoleError(other.to_string())),
        }
    }
}

impl fmt::Display for SeatRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl KeyRole {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyRole::Viewer => "viewer",
            KeyRole::Member => "member",
        }
    }

    /// The seat role a request made with this key acts as.
    pub fn as_seat(self) -> SeatRole {
        match self {
            KeyRole::Viewer => SeatRole::Viewer,
            KeyRole::Member => SeatRole::Member,
        }
    }
}

impl FromStr for KeyRole {
    type Err = ParseRoleError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "viewer" => Ok(KeyRole::Viewer),
            "member" => Ok(KeyRole::Member),
            other => Err(ParseRoleError(other.to_string())),
        }
    }
}

impl fmt::Display for KeyRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Quality {
    /// Every quality, cheapest first.
    pub const ALL: [Quality; 3] = [Quality::K1, Quality::K2, Quality::K4];

    /// The wire name (`1k`, `2k`, `4k`).
    pub fn as_str(self) -> &'static str {
        match self {
            Quality::K1 => "1k",
            Quality::K2 => "2k",
            Quality::K4 => "4k",
        }
    }

    /// The long edge of the output in pixels.
    pub fn long_edge(self) -> u32 {
        match self {
            Quality::K1 => 1024,
            Quality::K2 => 2048,
            Quality::K4 => 4096,
        }
    }
}

impl FromStr for Quality {
    type Err = ParseRoleError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "1k" => Ok(Quality::K1),
            "2k" => Ok(Quality::K2),
            "4k" => Ok(Quality::K4),
            other => Err(ParseRoleError(other.to_string())),
        }
    }
}

impl fmt::Display for Quality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
