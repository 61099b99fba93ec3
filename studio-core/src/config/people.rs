//! Settings of people and houses: the weekly seat-invitation limit, how long a seat invitation
//! stays open, and the tool catalogue's trial window (`[people]` in the server's TOML file).

use serde::Deserialize;

/// People-and-houses settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PeopleConfig {
    /// Seat invitations one house may send in any 7 days (429 `INVITE_LIMIT` past it).
    pub seat_invites_per_week: i64,
    /// Days a seat invitation can be accepted.
    pub seat_invite_days: i64,
    /// Days after sign-up during which every tool of the catalogue is open.
    pub trial_days: i64,
}

impl Default for PeopleConfig {
    fn default() -> Self {
        PeopleConfig { seat_invites_per_week: 50, seat_invite_days: 7, trial_days: 14 }
    }
}
