package sqlite

import (
	"context"
	"errors"

	"github.com/mnemon-dev/mnemon/search"
)

// The triggers of migration 0017, made again by migration 0020: a version
// others share copies its text and vector into them before it goes or is
// re-embedded, now its text as read when it refers to its episode's.
const (
	qUnshareOnDelete = `CREATE TRIGGER versions_unshare_on_delete BEFORE DELETE ON versions
WHEN coalesce(OLD.shared, 0) & 2 = 0
BEGIN
    UPDATE versions SET content = ` + oldContent + `, embedding = OLD.embedding, same_as = NULL,
        shared = shared & ~2
    WHERE namespace = OLD.namespace AND same_as = OLD.id;
END`
	qUnshareOnEmbedding = `CREATE TRIGGER versions_unshare_on_embedding BEFORE UPDATE OF embedding, content ON versions
WHEN coalesce(OLD.shared, 0) & 2 = 0
BEGIN
    UPDATE versions SET content = ` + oldContent + `, embedding = OLD.embedding, same_as = NULL,
        shared = shared & ~2
    WHERE namespace = OLD.namespace AND same_as = OLD.id;
END`
	oldContent = `CASE WHEN OLD.shared & 8 THEN coalesce((SELECT e.content FROM episodes e
        WHERE e.namespace = OLD.namespace AND e.id = json_extract(OLD.evidence_episode_ids, '$[0]')), '') ELSE OLD.content END`
)

// packBatch is how many vectors migration 0020 reads before writing them
// back packed, so a large store is not held in memory at once.
const packBatch = 1000

// migrateShortForms is migration 0020's rewrite of existing rows into the
// forms the store now writes (see 0020_short_forms.sql).
func migrateShortForms(ctx context.Context, e *executor) error {
	if _, err := e.exec(ctx, `UPDATE memories SET kind = `+symSQL("kind")); err != nil {
		return mapErr(err)
	}
	if _, err := e.exec(ctx, `UPDATE versions SET kind = `+symSQL("kind")+`, type = `+symSQL("type")+`,
	criticality = `+symSQL("criticality")+`, operation = `+symSQL("operation")+`,
	prov_extractor = `+symSQL("prov_extractor")+`, prov_model = `+symSQL("prov_model")+`,
	prov_prompt_version = `+symSQL("prov_prompt_version")+`, prov_embedder = `+symSQL("prov_embedder")+`,
	prov_source = `+symSQL("prov_source")); err != nil {
		return mapErr(err)
	}
	if _, err := e.exec(ctx, `UPDATE admissions SET extractor = `+symSQL("extractor")+`,
	reasons = `+reasonsSQL("reasons")); err != nil {
		return mapErr(err)
	}
	type packed struct {
		rowid int64
		b     []byte
	}
	var after int64
	for {
		rows, err := e.query(ctx, `SELECT rowid, embedding FROM versions
		WHERE rowid > ? AND embedding IS NOT NULL ORDER BY rowid LIMIT ?`, after, packBatch)
		if err != nil {
			return mapErr(err)
		}
		var batch []packed
		n := 0
		for rows.Next() {
			var p packed
			if err := rows.Scan(&p.rowid, &p.b); err != nil {
				rows.Close()
				return mapErr(err)
			}
			n++
			after = p.rowid
			if q := search.PackVector(p.b); search.IsPacked(q) {
				batch = append(batch, packed{p.rowid, q})
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return mapErr(err)
		}
		for _, p := range batch {
			if _, err := e.exec(ctx, `UPDATE versions SET embedding = ? WHERE rowid = ?`, p.b, p.rowid); err != nil {
				return mapErr(err)
			}
		}
		if n < packBatch {
			break
		}
	}
	for _, q := range []string{qUnshareOnDelete, qUnshareOnEmbedding} {
		if _, err := e.exec(ctx, q); err != nil {
			return mapErr(err)
		}
	}
	return nil
}
