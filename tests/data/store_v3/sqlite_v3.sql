-- A version-3 SQLite store written by fifteentwo before the SQLAlchemy store (sqlite3 .dump).
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES(3);
CREATE TABLE games_in_progress (
        game_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        owner_hint TEXT NOT NULL,
        meta TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        seq INTEGER NOT NULL
    );
INSERT INTO games_in_progress VALUES('NAZ4z4S5t0pU','terminal','','{"variant":"short","target":61,"players":["You","Computer"],"levels":["human","greedy"],"scores":[12,30],"kind":"terminal","owner_hint":"","takebacks":0}','{"version":1,"step":7,"note":"a game kept by version 3"}','2026-11-26T20:39:55.829089+00:00','2026-11-26T20:39:55.829089+00:00',1);
CREATE TABLE leases (
        game_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        heartbeat REAL NOT NULL
    );
INSERT INTO leases VALUES('NAZ4z4S5t0pU','old-owner',1562,'vm',1795725595.8292779922);
CREATE TABLE finished_games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id TEXT,
        kind TEXT NOT NULL,
        owner_hint TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        variant TEXT NOT NULL,
        target INTEGER NOT NULL,
        levels TEXT NOT NULL,
        seats TEXT NOT NULL,
        human_seat INTEGER,
        seed TEXT NOT NULL,
        game_number INTEGER NOT NULL,
        scores TEXT NOT NULL,
        winner INTEGER NOT NULL,
        won INTEGER,
        skunk INTEGER NOT NULL,
        game_points INTEGER NOT NULL,
        deals INTEGER NOT NULL,
        hands TEXT NOT NULL,
        counted INTEGER NOT NULL,
        pegged INTEGER NOT NULL,
        best_hand INTEGER,
        takebacks INTEGER NOT NULL,
        record TEXT NOT NULL
    );
INSERT INTO finished_games VALUES(1,NULL,'terminal','','2026-01-02T03:04:05+00:00','short',61,'human,greedy','[{"name":"You","human":true},{"name":"Computer","level":"greedy"}]',0,'18446744073709551621',1,'[61,40]',0,1,0,1,7,'[{"deal":1,"hand":8,"crib":null}]',30,31,12,0,'{"moves":[1,2,3]}');
CREATE TABLE set_aside (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source TEXT NOT NULL,
        key TEXT NOT NULL,
        reason TEXT NOT NULL,
        set_aside_at TEXT NOT NULL,
        content TEXT NOT NULL
    );
CREATE TABLE imports (
        source TEXT PRIMARY KEY,
        imported_at TEXT NOT NULL,
        detail TEXT NOT NULL
    );
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO settings VALUES('web.secret','s3cr3t');
CREATE TABLE accounts (
        account_id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        username_key TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        volatility REAL NOT NULL,
        rated_games INTEGER NOT NULL
    );
INSERT INTO accounts VALUES('cpUB4DqqZd9n','Ada','ada','argon2-hash','2026-11-26T20:39:55.829539+00:00',1612.4999999999999999,80.0,0.059999999999999997779,1);
CREATE TABLE tables (
        table_id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    , due_at TEXT);
INSERT INTO tables VALUES('tbl000000001','open',1,'{"seats":[null,null]}','2026-11-26T20:39:55.829650+00:00','2026-11-26T20:39:55.829650+00:00','2026-01-02T03:04:05.000000+00:00');
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('finished_games',1);
CREATE INDEX games_in_progress_recent ON games_in_progress (owner_hint, seq);
CREATE INDEX finished_by_level ON finished_games (levels, variant);
CREATE INDEX tables_by_status ON tables (status, updated_at);
CREATE INDEX tables_by_due ON tables (due_at);
COMMIT;
