package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// pgvector, when the database has it, and nothing when it does not.
//
// Versions keep their vectors in versions.embedding (bytea, the engine's
// encoding) whatever the database has: that column is the record, and
// every process searches it in its in-process index. When the vector
// extension is installed in the database (CREATE EXTENSION vector, by an
// operator: mnemon never installs it), Open finds it by reading the
// catalogs, and then:
//
//   - makes version_vectors, a copy of each version's vector as pgvector
//     values (dense as vector, sparse as sparsevec), deleted with its
//     version, and copies in the vectors written before;
//   - every write of a version's vector writes its copy in the same
//     transaction;
//   - an HNSW index (cosine) per vector length is made the first time a
//     length is written (CREATE INDEX CONCURRENTLY, in the background:
//     writes do not wait for it). pgvector's HNSW indexes hold dense
//     vectors up to 2,000 dimensions and sparse ones up to 1,000 nonzero
//     values; longer ones are copied but not indexed and not searched;
//   - the store is a memory.VectorSearcher: the engine's semantic channel
//     asks it for the nearest versions, scored by the same cosine.
//
// None of this is decided at build time: the same binary takes either
// path. Where the extension is missing (as on the machines this was built
// on, where pgvector is not installable) no table, index or statement of
// it exists and the engine searches its index. See docs/replicas.md for
// what was exercised where.

// HNSW limits of pgvector (0.7/0.8): dimensions of an indexed vector,
// nonzero values of an indexed sparsevec.
const (
	hnswMaxDense  = 2000
	hnswMaxSparse = 1000
)

// vectorCopy is the state of the pgvector copy of a store; nil when the
// extension is not installed.
type vectorCopy struct {
	pool    *pgxpool.Pool
	ext     Pgvector
	sparse  bool // sparsevec exists (pgvector 0.7 and later)
	relaxed bool // hnsw.iterative_scan exists (0.8 and later)

	mu      sync.Mutex
	indexed map[string]bool // "dense/1536": an index was made or asked for
}

const qVectorTable = `CREATE TABLE IF NOT EXISTS version_vectors (
    namespace  text COLLATE "C" NOT NULL,
    version_id text COLLATE "C" NOT NULL,
    dim        integer NOT NULL,
    nnz        integer NOT NULL,
    dense      vector,
    sparse     %s,
    PRIMARY KEY (namespace, version_id),
    FOREIGN KEY (namespace, version_id) REFERENCES versions (namespace, id) ON DELETE CASCADE
)`

const qPutVector = `INSERT INTO version_vectors (namespace, version_id, dim, nnz, dense, sparse)
VALUES ($1, $2, $3, $4, $5::text::vector, %s)
ON CONFLICT (namespace, version_id) DO UPDATE SET dim = excluded.dim, nnz = excluded.nnz, dense = excluded.dense, sparse = excluded.sparse`

const qDeleteVector = `DELETE FROM version_vectors WHERE namespace = $1 AND version_id = $2`

// openVectors detects pgvector and, when it is installed, readies the
// copy: on a read-write store it makes the table and copies the vectors
// written before; a read-only store uses a table a writer made, or none.
func openVectors(ctx context.Context, pool *pgxpool.Pool, readOnly bool) (*vectorCopy, error) {
	var p Pgvector
	if err := pool.QueryRow(ctx, qDetectPgvector).Scan(&p.Installed, &p.Available); err != nil {
		return nil, fmt.Errorf("postgres: pgvector: %w", mapErr(err))
	}
	if !p.Present() {
		return nil, nil
	}
	vc := &vectorCopy{pool: pool, ext: p, indexed: map[string]bool{}, relaxed: versionAtLeast(p.Installed, 0, 8)}
	var table bool
	if err := pool.QueryRow(ctx, `SELECT to_regtype('sparsevec') IS NOT NULL, to_regclass('version_vectors') IS NOT NULL`).Scan(&vc.sparse, &table); err != nil {
		return nil, fmt.Errorf("postgres: pgvector: %w", mapErr(err))
	}
	if readOnly {
		if !table {
			return nil, nil
		}
		return vc, nil
	}
	sparseType := "text" // a placeholder column, always NULL, before sparsevec existed
	if vc.sparse {
		sparseType = "sparsevec"
	}
	if _, err := pool.Exec(ctx, fmt.Sprintf(qVectorTable, sparseType)); err != nil {
		return nil, fmt.Errorf("postgres: pgvector: make version_vectors: %w", mapErr(err))
	}
	if err := vc.backfill(ctx); err != nil {
		return nil, err
	}
	return vc, nil
}

const qDetectPgvector = `SELECT
    COALESCE((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
    COALESCE((SELECT default_version FROM pg_available_extensions WHERE name = 'vector'), '')`

// backfill copies the vectors of versions that have none in
// version_vectors (written before the extension was installed), a
// thousand to a transaction.
func (vc *vectorCopy) backfill(ctx context.Context) error {
	for {
		n := 0
		err := pgx.BeginFunc(ctx, vc.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT v.namespace, v.id, v.embedding FROM versions v
			WHERE v.embedding IS NOT NULL AND NOT EXISTS
			  (SELECT 1 FROM version_vectors w WHERE w.namespace = v.namespace AND w.version_id = v.id)
			LIMIT 1000`)
			if err != nil {
				return err
			}
			type row struct {
				ns, id string
				emb    []byte
			}
			var todo []row
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.ns, &r.id, &r.emb); err != nil {
					return err
				}
				todo = append(todo, r)
			}
			if err := rows.Err(); err != nil {
				return err
			}
			b := &pgx.Batch{}
			for _, r := range todo {
				if q, args, ok := vc.put(r.ns, r.id, r.emb); ok {
					b.Queue(q, args...)
					n++
				}
			}
			if n == 0 {
				return nil
			}
			return tx.SendBatch(ctx, b).Close()
		})
		if err != nil {
			return fmt.Errorf("postgres: pgvector: copy the stored vectors: %w", mapErr(err))
		}
		if n == 0 {
			return nil
		}
	}
}

// put returns the statement that writes a version's vector copy, and asks
// for the index of its length. ok is false for an empty or undecodable
// vector, or a sparse one without sparsevec: nothing to copy.
func (vc *vectorCopy) put(ns, id string, emb []byte) (string, []any, bool) {
	if len(emb) == 0 {
		return qDeleteVector, []any{ns, id}, true
	}
	v, err := search.DecodeVector(emb)
	if err != nil || v.IsZero() || (v.Sparse() && !vc.sparse) {
		return "", nil, false
	}
	sparseArg := "NULL"
	if vc.sparse {
		sparseArg = "$6::text::sparsevec"
	}
	q := fmt.Sprintf(qPutVector, sparseArg)
	var dense, sparse *string
	lit := vectorLiteral(v)
	kind := "dense"
	if v.Sparse() {
		sparse, kind = &lit, "sparse"
	} else {
		dense = &lit
	}
	args := []any{ns, id, v.Dim, nnz(v), dense}
	if vc.sparse {
		args = append(args, sparse)
	}
	vc.ensureIndex(kind, v.Dim)
	return q, args, true
}

// ensureIndex asks, once per process and length, for the HNSW index of
// that length, built in the background without blocking writes.
func (vc *vectorCopy) ensureIndex(kind string, dim int) {
	if kind == "dense" && dim > hnswMaxDense {
		return
	}
	key := kind + "/" + strconv.Itoa(dim)
	vc.mu.Lock()
	done := vc.indexed[key]
	vc.indexed[key] = true
	vc.mu.Unlock()
	if done {
		return
	}
	go func() {
		// Background: the write that asked does not wait, and an index
		// that fails to build costs search speed, never a write.
		_, _ = vc.pool.Exec(context.Background(), indexDDL(kind, dim))
	}()
}

// indexDDL is the HNSW index of the vectors of one kind and length: an
// expression index on the column cast to its length, partial on that
// length, as pgvector indexes columns of mixed lengths.
func indexDDL(kind string, dim int) string {
	if kind == "sparse" {
		return fmt.Sprintf(`CREATE INDEX CONCURRENTLY IF NOT EXISTS version_vectors_sparse_%[1]d ON version_vectors
		USING hnsw ((sparse::sparsevec(%[1]d)) sparsevec_cosine_ops) WHERE dim = %[1]d AND sparse IS NOT NULL AND nnz <= %[2]d`, dim, hnswMaxSparse)
	}
	return fmt.Sprintf(`CREATE INDEX CONCURRENTLY IF NOT EXISTS version_vectors_dense_%[1]d ON version_vectors
	USING hnsw ((dense::vector(%[1]d)) vector_cosine_ops) WHERE dim = %[1]d AND dense IS NOT NULL`, dim)
}

// searchSQL is the nearest-neighbour query of one kind and length, worded
// so the planner can use indexDDL's index.
func searchSQL(kind string, dim int) string {
	if kind == "sparse" {
		return fmt.Sprintf(`SELECT version_id, 1 - ((sparse::sparsevec(%[1]d)) <=> $2::text::sparsevec(%[1]d))
		FROM version_vectors WHERE namespace = $1 AND dim = %[1]d AND sparse IS NOT NULL AND nnz <= %[2]d
		ORDER BY (sparse::sparsevec(%[1]d)) <=> $2::text::sparsevec(%[1]d) LIMIT $3`, dim, hnswMaxSparse)
	}
	return fmt.Sprintf(`SELECT version_id, 1 - ((dense::vector(%[1]d)) <=> $2::text::vector(%[1]d))
	FROM version_vectors WHERE namespace = $1 AND dim = %[1]d AND dense IS NOT NULL
	ORDER BY (dense::vector(%[1]d)) <=> $2::text::vector(%[1]d) LIMIT $3`, dim)
}

// vectorLiteral is v in pgvector's text form: [1,2,3] for a dense vector,
// {1:0.5,7:0.25}/DIM (indices from 1) for a sparse one.
func vectorLiteral(v search.Vector) string {
	var b strings.Builder
	f := func(x float32) { b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32)) }
	if !v.Sparse() {
		b.WriteByte('[')
		for i, x := range v.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			f(x)
		}
		b.WriteByte(']')
		return b.String()
	}
	b.WriteByte('{')
	for i, j := range v.Indices {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(uint64(j)+1, 10))
		b.WriteByte(':')
		f(v.Values[i])
	}
	b.WriteString("}/")
	b.WriteString(strconv.Itoa(v.Dim))
	return b.String()
}

func nnz(v search.Vector) int {
	if v.Sparse() {
		return len(v.Indices)
	}
	return len(v.Values)
}

// versionAtLeast reports whether an extension version "M.m.p" is at least
// major.minor.
func versionAtLeast(ver string, major, minor int) bool {
	parts := strings.Split(ver, ".")
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

// putVector writes the copy of a version's vector in e's transaction,
// when the store keeps copies.
func (e *executor) putVector(ctx context.Context, ns, id string, emb []byte) error {
	if e.vec == nil {
		return nil
	}
	q, args, ok := e.vec.put(ns, id, emb)
	if !ok {
		return nil
	}
	_, err := e.exec(ctx, q, args...)
	return err
}

// VectorSearchEnabled reports whether pgvector is installed and the store
// keeps its copies of the vectors (memory.VectorSearcher).
func (s *Store) VectorSearchEnabled() bool { return s.vec != nil }

// errNoVectors is SearchVectors on a store without pgvector.
var errNoVectors = errors.New("postgres: vector search: pgvector is not installed in this database")

// SearchVectors returns the versions of a namespace nearest the query by
// cosine, from the HNSW index of the query's kind and length
// (memory.VectorSearcher). The search widens ef_search to K, so the index
// returns as many neighbours as asked; with pgvector 0.8 it scans on past
// other namespaces' rows (iterative_scan) until K of this one are found.
func (s *Store) SearchVectors(ctx context.Context, p memory.VectorSearchParams) ([]memory.VectorHit, error) {
	if s.vec == nil {
		return nil, errNoVectors
	}
	if err := checkNamespace(p.Namespace); err != nil {
		return nil, fmt.Errorf("postgres: vector search: %w", err)
	}
	q, err := search.DecodeVector(p.Query)
	if err != nil {
		return nil, fmt.Errorf("postgres: vector search: %w", memory.Invalidf("the query vector does not decode: %v", err))
	}
	if q.IsZero() || p.K <= 0 {
		return nil, nil
	}
	kind := "dense"
	if q.Sparse() {
		kind = "sparse"
		if !s.vec.sparse {
			return nil, errors.New("postgres: vector search: this pgvector has no sparsevec (0.7 and later)")
		}
	}
	var out []memory.VectorHit
	err = s.readTx(ctx, func(e *executor) error {
		if _, err := e.q.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1, true)`, strconv.Itoa(max(40, min(p.K, 1000)))); err != nil {
			return err
		}
		if s.vec.relaxed {
			if _, err := e.q.Exec(ctx, `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`); err != nil {
				return err
			}
		}
		rows, err := e.q.Query(ctx, searchSQL(kind, q.Dim), p.Namespace, vectorLiteral(q), p.K)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h memory.VectorHit
			if err := rows.Scan(&h.VersionID, &h.Score); err != nil {
				return err
			}
			if h.Score >= p.Floor {
				out = append(out, h)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: vector search: %w", mapErr(err))
	}
	return out, nil
}
