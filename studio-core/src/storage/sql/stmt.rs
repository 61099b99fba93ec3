//! Declared statements: the query builder of the money and ownership paths (docs/storage.md,
//! "Declared statements").
//!
//! A statement is declared once, by name, with its parameters named and typed in `$N` order,
//! what it answers (`exec`, `row<T>`, `scalar<T>`), its scope and how PostgreSQL locks what it
//! reads:
//!
//! ```text
//! statements! {
//!     /// A hold of a house, locked.
//!     fn hold_locked(id: &'q HoldId, org_id: &'q OrgId) -> row<HoldRow> [house, lock] {
//!         "SELECT ", hold_columns!(), " FROM holds WHERE id = $1 AND org_id = $2"
//!     }
//! }
//! ```
//!
//! Each becomes a function generic over the backend that binds its arguments in declared order,
//! so the compiler checks every call's count and types (a house where a hold is due does not
//! compile), and an entry of the module's `ALL`, which the statement check (the tests below)
//! prepares on a real SQLite and a real PostgreSQL with the migrations applied. The check fails
//! when a statement does not prepare against the schema, when its `$N` are not exactly the
//! declared parameters, when PostgreSQL expects another type than the one bound, when a
//! parameter is compared with or written to a column of another name (`id = $2` must bind a
//! parameter named `id`, or `<qualifier>_id` when one column meets two values), and when a statement scoped to a house has no `org_id = $k` for its
//! `org_id` parameter. A statement that is not filtered by house says why (`[any "why"]`).
//!
//! Flags after the scope: `lock` (PostgreSQL adds `FOR UPDATE`; SQLite serialises writers in
//! process), `skip_locked` (`FOR UPDATE SKIP LOCKED`), `postgres_only` (never run on SQLite).

/// Which rows a declared statement may reach.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))] // read by the statement check
pub(in crate::storage) enum Scope {
    /// One house's: a parameter named `org_id` filters (or writes) the `org_id` column.
    House,
    /// Not filtered by house, and why that is safe.
    Any(&'static str),
}

/// One declared statement, as the statement check reads it.
#[cfg_attr(not(test), allow(dead_code))]
pub(in crate::storage) struct Statement {
    /// The function's name.
    pub name: &'static str,
    /// The text as SQLite runs it.
    pub sql: &'static str,
    /// The text as PostgreSQL runs it (with its lock clause).
    pub pg_sql: &'static str,
    /// The parameters' names, `$1` first.
    pub params: &'static [&'static str],
    /// Which rows it may reach.
    pub scope: Scope,
    /// Run on PostgreSQL only.
    pub postgres_only: bool,
    /// The PostgreSQL types of the declared parameters: what sqlx sends with the statement.
    #[cfg(all(test, feature = "postgres"))]
    pub pg_types: fn() -> Vec<sqlx::postgres::PgTypeInfo>,
}

/// Whether backend `DB` runs the locked text (PostgreSQL) rather than the plain one.
pub(in crate::storage) fn locking<DB: sqlx::Database>() -> bool {
    DB::NAME == "PostgreSQL"
}

/// Declare statements (see the module's documentation).
macro_rules! statements {
    ($(
        $(#[doc = $doc:literal])+
        fn $name:ident($($p:ident: $t:ty),* $(,)?) -> $kind:ident $(<$out:ty>)? [$scope:ident $($why:literal)? $(, $flag:ident)*] { $($sql:tt)+ }
    )+) => {
        $(
            $crate::storage::sql::stmt::statements!(@fn [$(#[doc = $doc])+] $name ($($p: $t),*) $kind $(<$out>)?
                { concat!($($sql)+) }
                { concat!($($sql)+ $(, $crate::storage::sql::stmt::statements!(@suffix $flag))*) });
        )+

        /// Every statement declared here, for the statement check.
        #[allow(dead_code)]
        pub(in crate::storage) const ALL: &[$crate::storage::sql::stmt::Statement] = &[$(
            $crate::storage::sql::stmt::Statement {
                name: stringify!($name),
                sql: concat!($($sql)+),
                pg_sql: concat!($($sql)+ $(, $crate::storage::sql::stmt::statements!(@suffix $flag))*),
                params: &[$(stringify!($p)),*],
                scope: $crate::storage::sql::stmt::statements!(@scope $scope $($why)?),
                postgres_only: false $(|| $crate::storage::sql::stmt::statements!(@only $flag))*,
                #[cfg(all(test, feature = "postgres"))]
                pg_types: {
                    #[allow(clippy::extra_unused_lifetimes)]
                    fn types<'q>() -> Vec<sqlx::postgres::PgTypeInfo> {
                        vec![$(<$t as sqlx::Type<sqlx::Postgres>>::type_info()),*]
                    }
                    types
                },
            }
        ),+];
    };

    (@fn [$($doc:tt)+] $name:ident ($($p:ident: $t:ty),*) exec { $plain:expr } { $locked:expr }) => {
        $($doc)+
        #[allow(clippy::too_many_arguments)]
        pub(in crate::storage) fn $name<'q, DB: sqlx::Database>($($p: $t),*) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>
        where
            $($t: 'q + sqlx::Encode<'q, DB> + sqlx::Type<DB> + Send,)*
        {
            let sql = if $crate::storage::sql::stmt::locking::<DB>() { $locked } else { $plain };
            sqlx::query(sql)$(.bind($p))*
        }
    };
    (@fn [$($doc:tt)+] $name:ident ($($p:ident: $t:ty),*) row<$out:ty> { $plain:expr } { $locked:expr }) => {
        $($doc)+
        #[allow(clippy::too_many_arguments)]
        pub(in crate::storage) fn $name<'q, DB: sqlx::Database>($($p: $t),*) -> sqlx::query::QueryAs<'q, DB, $out, <DB as sqlx::Database>::Arguments<'q>>
        where
            $($t: 'q + sqlx::Encode<'q, DB> + sqlx::Type<DB> + Send,)*
            $out: for<'r> sqlx::FromRow<'r, DB::Row>,
        {
            let sql = if $crate::storage::sql::stmt::locking::<DB>() { $locked } else { $plain };
            sqlx::query_as(sql)$(.bind($p))*
        }
    };
    (@fn [$($doc:tt)+] $name:ident ($($p:ident: $t:ty),*) scalar<$out:ty> { $plain:expr } { $locked:expr }) => {
        $($doc)+
        #[allow(clippy::too_many_arguments)]
        pub(in crate::storage) fn $name<'q, DB: sqlx::Database>($($p: $t),*) -> sqlx::query::QueryScalar<'q, DB, $out, <DB as sqlx::Database>::Arguments<'q>>
        where
            $($t: 'q + sqlx::Encode<'q, DB> + sqlx::Type<DB> + Send,)*
            ($out,): for<'r> sqlx::FromRow<'r, DB::Row>,
        {
            let sql = if $crate::storage::sql::stmt::locking::<DB>() { $locked } else { $plain };
            sqlx::query_scalar(sql)$(.bind($p))*
        }
    };

    (@suffix lock) => { " FOR UPDATE" };
    (@suffix skip_locked) => { " FOR UPDATE SKIP LOCKED" };
    (@suffix postgres_only) => { "" };
    (@only postgres_only) => { true };
    (@only $other:ident) => { false };
    (@scope house) => { $crate::storage::sql::stmt::Scope::House };
    (@scope any $why:literal) => { $crate::storage::sql::stmt::Scope::Any($why) };
}

pub(in crate::storage) use statements;

/// The statement check's textual half: what can be read off a statement without a database.
/// Each message names the statement.
#[cfg(test)]
pub(in crate::storage) fn lint(s: &Statement) -> Vec<String> {
    let mut bad = Vec::new();
    let mut say = |m: String| bad.push(format!("{}: {m}", s.name));
    // `$N`: exactly 1..=n, n the declared parameters.
    let used = placeholders(s.pg_sql);
    let expected: std::collections::BTreeSet<usize> = (1..=s.params.len()).collect();
    if used != expected {
        say(format!("uses ${used:?} but declares {} parameters {:?}", s.params.len(), s.params));
    }
    // A parameter compared with or written to a column is named after it.
    let written = inserted(s.pg_sql).unwrap_or_else(|e| {
        say(e);
        Vec::new()
    });
    for (column, k) in compared(s.pg_sql).into_iter().chain(written.iter().cloned()) {
        match s.params.get(k - 1) {
            Some(p) if names(p, &column) => {}
            Some(p) => say(format!("${k} binds `{p}` to the column `{column}`")),
            None => {}
        }
    }
    match s.scope {
        Scope::House => match s.params.iter().position(|p| *p == "org_id") {
            None => say("is scoped to a house but has no `org_id` parameter".into()),
            Some(i) => {
                let k = i + 1;
                let filtered = compared(s.pg_sql)
                    .into_iter()
                    .chain(written.iter().cloned())
                    .any(|(c, at)| c == "org_id" && at == k);
                if !filtered {
                    say(format!("is scoped to a house but no `org_id` column meets ${k}"));
                }
            }
        },
        Scope::Any(why) if why.trim().is_empty() => say("reaches every house without saying why".into()),
        Scope::Any(_) => {}
    }
    if !s.postgres_only && s.sql != s.pg_sql && !s.pg_sql.starts_with(s.sql) {
        say("the PostgreSQL text is not the SQLite text with a lock clause".into());
    }
    bad
}

/// Whether parameter `p` is named after `column`: its name, or its name after one of
/// [`QUALIFIERS`] (`from_folder_id`, `stale_claimed_at`: a second value meeting one column).
#[cfg(test)]
fn names(p: &str, column: &str) -> bool {
    p == column || QUALIFIERS.iter().any(|q| p.strip_prefix(q) == Some(column))
}

/// The qualifiers a parameter's name may put before its column's: none of them names a column,
/// so `org_id` can never pass for `id`.
#[cfg(test)]
const QUALIFIERS: &[&str] = &["from_", "new_", "old_", "other_", "stale_", "before_", "after_", "min_", "max_"];

/// The `$N` a text uses.
#[cfg(test)]
fn placeholders(sql: &str) -> std::collections::BTreeSet<usize> {
    let b = sql.as_bytes();
    let mut out = std::collections::BTreeSet::new();
    for (i, _) in sql.match_indices('$') {
        let digits: String = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).map(|&c| c as char).collect();
        if let Ok(n) = digits.parse() {
            out.insert(n);
        }
    }
    out
}

/// `column <op> $k` and `$k <op> column` pairs (`=`, `<>`, `!=`, `<`, `>`, `<=`, `>=`), the
/// column without its table.
#[cfg(test)]
fn compared(sql: &str) -> Vec<(String, usize)> {
    let b = sql.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let op = |c: u8| matches!(c, b'=' | b'<' | b'>' | b'!');
    let column = |w: &str| {
        let c = w.rsplit('.').next().unwrap_or(w);
        (!c.is_empty() && !c.chars().all(|c| c.is_ascii_digit()) && !c.starts_with('$')).then(|| c.to_string())
    };
    let mut out = Vec::new();
    for (i, _) in sql.match_indices('$') {
        let digits: String = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).map(|&c| c as char).collect();
        let Ok(k) = digits.parse::<usize>() else { continue };
        // Backwards: `column <op> $k`.
        let mut j = i;
        while j > 0 && b[j - 1] == b' ' {
            j -= 1;
        }
        let op_end = j;
        while j > 0 && op(b[j - 1]) {
            j -= 1;
        }
        if j < op_end {
            while j > 0 && b[j - 1] == b' ' {
                j -= 1;
            }
            let end = j;
            while j > 0 && word(b[j - 1]) {
                j -= 1;
            }
            out.extend(column(&sql[j..end]).map(|c| (c, k)));
        }
        // Forwards: `$k <op> column`.
        let mut j = i + 1 + digits.len();
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        let op_start = j;
        while j < b.len() && op(b[j]) {
            j += 1;
        }
        if j > op_start {
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            let start = j;
            while j < b.len() && word(b[j]) {
                j += 1;
            }
            out.extend(column(&sql[start..j]).map(|c| (c, k)));
        }
    }
    out
}

/// `(column, k)` for each `$k` an `INSERT INTO t (columns) VALUES (values)` writes to a column.
#[cfg(test)]
fn inserted(sql: &str) -> Result<Vec<(String, usize)>, String> {
    let mut out = Vec::new();
    let upper = sql.to_ascii_uppercase();
    let Some(start) = upper.find("INSERT INTO ") else { return Ok(out) };
    let Some(open) = sql[start..].find('(').map(|o| start + o) else { return Ok(out) };
    let Some(close) = sql[open..].find(')').map(|c| open + c) else { return Ok(out) };
    let Some(vopen) = upper[close..].find("VALUES (").map(|v| close + v + "VALUES ".len()) else { return Ok(out) };
    let Some(vclose) = sql[vopen..].find(')').map(|c| vopen + c) else { return Ok(out) };
    let columns: Vec<&str> = sql[open + 1..close].split(',').map(str::trim).collect();
    let values: Vec<&str> = sql[vopen + 1..vclose].split(',').map(str::trim).collect();
    if columns.len() != values.len() {
        return Err(format!("inserts {} columns from {} values", columns.len(), values.len()));
    }
    for (c, v) in columns.into_iter().zip(values) {
        if let Some(k) = v.strip_prefix('$').and_then(|k| k.parse().ok()) {
            out.push((c.to_string(), k));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::sql::q::all;

    #[test]
    fn the_lint_reads_names_positions_and_houses() {
        let swapped = Statement {
            name: "swapped",
            sql: "UPDATE holds SET status = $1 WHERE id = $3 AND org_id = $2",
            pg_sql: "UPDATE holds SET status = $1 WHERE id = $3 AND org_id = $2",
            params: &["status", "id", "org_id"],
            scope: Scope::House,
            postgres_only: false,
            #[cfg(feature = "postgres")]
            pg_types: Vec::new,
        };
        let said = lint(&swapped).join("\n");
        assert!(said.contains("$3 binds `org_id` to the column `id`"), "{said}");
        assert!(said.contains("$2 binds `id` to the column `org_id`"), "{said}");
        assert!(said.contains("no `org_id` column meets $3"), "{said}");
        assert!(names("stale_claimed_at", "claimed_at") && names("id", "id"));
        assert!(!names("claimed_at", "id") && !names("org_id", "id") && !names("paid", "id"));

        let short = Statement {
            name: "short",
            sql: "INSERT INTO holds (id, org_id, amount) VALUES ($1, $2, $4)",
            pg_sql: "INSERT INTO holds (id, org_id, amount) VALUES ($1, $2, $4)",
            params: &["id", "org_id", "amount"],
            scope: Scope::Any(" "),
            postgres_only: false,
            #[cfg(feature = "postgres")]
            pg_types: Vec::new,
        };
        let said = lint(&short).join("\n");
        assert!(said.contains("declares 3 parameters"), "{said}");
        assert!(said.contains("without saying why"), "{said}");

        let fine = Statement {
            name: "fine",
            sql: "INSERT INTO holds (id, org_id, amount, status) VALUES ($1, $2, $3, 'held')",
            pg_sql: "INSERT INTO holds (id, org_id, amount, status) VALUES ($1, $2, $3, 'held')",
            params: &["id", "org_id", "amount"],
            scope: Scope::House,
            postgres_only: false,
            #[cfg(feature = "postgres")]
            pg_types: Vec::new,
        };
        assert!(lint(&fine).is_empty(), "{:?}", lint(&fine));

        // Written value-first, a comparison is read all the same.
        let flipped = Statement {
            name: "flipped",
            pg_sql: "SELECT 1 FROM holds WHERE $1 > created_at",
            params: &["before"],
            scope: Scope::Any("a check"),
            ..fine
        };
        let said = lint(&flipped).join("\n");
        assert!(said.contains("$1 binds `before` to the column `created_at`"), "{said}");
    }

    #[test]
    fn every_declared_statement_passes_the_lint() {
        let bad: Vec<String> = all().into_iter().flat_map(lint).collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
        assert!(all().len() >= 30, "the money paths' statements are declared");
    }

    /// Prepare every declared statement on SQLite with the migrations applied.
    #[cfg(feature = "sqlite")]
    #[tokio::test]
    async fn every_declared_statement_prepares_on_sqlite() {
        use sqlx::{Connection as _, Executor as _};
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("stmt.db");
        let path = path.to_str().expect("path");
        drop(crate::storage::SqliteStorage::open(path).await.expect("open and migrate"));
        let url = format!("sqlite://{path}");
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let mut bad = Vec::new();
        for s in all().into_iter().filter(|s| !s.postgres_only) {
            match conn.describe(s.sql).await {
                Ok(d) => {
                    if let Some(sqlx::Either::Right(n)) = d.parameters()
                        && n != s.params.len()
                    {
                        bad.push(format!("{}: SQLite counts {n} parameters, {} declared", s.name, s.params.len()));
                    }
                }
                Err(e) => bad.push(format!("{}: {e}", s.name)),
            }
        }
        let _ = conn.close().await;
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// Prepare `s` on PostgreSQL as `name`, its parameters typed as the Rust values bound to
    /// them are (as sqlx sends them), and deallocate it.
    #[cfg(feature = "postgres")]
    async fn prepared(conn: &mut sqlx::PgConnection, name: &str, s: &Statement) -> Result<(), String> {
        use sqlx::TypeInfo as _;
        let types: Vec<String> = (s.pg_types)().iter().map(|t| t.name().to_string()).collect();
        let typed = if types.is_empty() { String::new() } else { format!(" ({})", types.join(", ")) };
        sqlx::raw_sql(&format!("PREPARE {name}{typed} AS {}", s.pg_sql))
            .execute(&mut *conn)
            .await
            .map_err(|e| format!("{} ({}): {e}", s.name, types.join(", ")))?;
        sqlx::raw_sql(&format!("DEALLOCATE {name}")).execute(&mut *conn).await.map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Prepare every declared statement on PostgreSQL with the migrations applied, typed as
    /// bound, so a column compared with or written from a value of another type fails here as
    /// it would at run time.
    #[cfg(feature = "postgres")]
    #[tokio::test]
    async fn every_declared_statement_prepares_on_postgres() {
        use sqlx::Connection as _;
        let Some(db) = studio_testdb::TestDatabase::create("stmt").await else { return };
        drop(crate::storage::PgStorage::connect(&db.url).await.expect("open and migrate"));
        let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
        // The check can fail: a timestamp column compared with text does not prepare.
        let wrong = Statement {
            name: "wrong",
            sql: "",
            pg_sql: "SELECT id FROM holds WHERE created_at >= $1",
            params: &["created_at"],
            scope: Scope::Any("a check of the check"),
            postgres_only: true,
            pg_types: || vec![<String as sqlx::Type<sqlx::Postgres>>::type_info()],
        };
        let refused = prepared(&mut conn, "wrong", &wrong).await.expect_err("text against a timestamp");
        assert!(refused.contains("operator does not exist"), "{refused}");
        let mut bad = Vec::new();
        for (i, s) in all().into_iter().enumerate() {
            if let Err(e) = prepared(&mut conn, &format!("declared_{i}"), s).await {
                bad.push(e);
            }
        }
        let _ = conn.close().await;
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}
