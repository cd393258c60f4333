package postgres

import (
	"context"
	"fmt"
)

// Info is what 'mnemon doctor' reports about a PostgreSQL database beyond
// the store's contract.
type Info struct {
	// Server is the server's version (server_version, e.g. "15.20 (Debian ...)").
	Server string
	// SchemaVersion is the version schema_migrations records; this build
	// writes SchemaVersion().
	SchemaVersion int
	// Pgvector says whether the vector extension is installed in the
	// database, or only available to install.
	Pgvector Pgvector
	// Changes is the change log: its newest sequence number over all
	// namespaces, the entries it holds and the namespaces it covers.
	LastChange int64
	Entries    int64
	Namespaces int64
}

// Pgvector is the state of the pgvector extension.
type Pgvector struct {
	// Installed is the installed version ("" when CREATE EXTENSION vector
	// was not run in this database).
	Installed string
	// Available is the version the server could install ("" when the
	// extension's files are not on the server).
	Available string
}

// Present reports whether vectors can be stored in a vector column.
func (p Pgvector) Present() bool { return p.Installed != "" }

// String says it in words.
func (p Pgvector) String() string {
	switch {
	case p.Installed != "":
		return "installed, version " + p.Installed
	case p.Available != "":
		return "not installed (version " + p.Available + " is available: CREATE EXTENSION vector)"
	}
	return "not on this server"
}

// DetectPgvector reads the state of the pgvector extension. It only reads
// the catalogs, so it works on a read-only store and for a role that may
// not create extensions.
func (s *Store) DetectPgvector(ctx context.Context) (Pgvector, error) {
	var p Pgvector
	err := s.pool.QueryRow(ctx, qDetectPgvector).Scan(&p.Installed, &p.Available)
	if err != nil {
		return Pgvector{}, fmt.Errorf("postgres: pgvector: %w", mapErr(err))
	}
	return p, nil
}

// Info reads the server version, the schema version, pgvector's state and
// the change log's position, in one read-only snapshot.
func (s *Store) Info(ctx context.Context) (Info, error) {
	var in Info
	err := s.readTx(ctx, func(e *executor) error {
		if err := e.q.QueryRow(ctx, `SELECT current_setting('server_version'), COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&in.Server, &in.SchemaVersion); err != nil {
			return err
		}
		return e.q.QueryRow(ctx, `SELECT COALESCE(MAX(seq), 0), count(*), count(DISTINCT namespace) FROM changes`).Scan(&in.LastChange, &in.Entries, &in.Namespaces)
	})
	if err != nil {
		return Info{}, fmt.Errorf("postgres: info: %w", mapErr(err))
	}
	if in.Pgvector, err = s.DetectPgvector(ctx); err != nil {
		return Info{}, err
	}
	return in, nil
}
