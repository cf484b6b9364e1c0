-- The sandbox clock's lead over the wall clock (the total of every `clock advance`), kept with
-- the state so a restart on the same database resumes sandbox time instead of falling back to
-- the wall clock. One row (id 1); no row means offset 0, which is what a reset leaves. saved_at
-- is the sandbox time when the row was written: with the rows' own times it is the floor that
-- sandbox time never goes below, also when the wall clock went back between runs.
CREATE TABLE sandbox_clock (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  offset_ms INTEGER NOT NULL CHECK (offset_ms >= 0),
  saved_at INTEGER NOT NULL
);
