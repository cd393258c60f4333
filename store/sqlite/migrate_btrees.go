package sqlite

import (
	"context"
	"encoding/hex"
	"errors"
)

// episodeMetadata is the stored form of an episode's metadata: its JSON,
// or "" for none (migration 0021; "null" in older rows).
func episodeMetadata(c *encoder, m map[string]string) string {
	if s := c.json("metadata", m); s != "null" {
		return s
	}
	return ""
}

// migrateEpisodes is migration 0021's Go step: episode kinds as codes
// (encodeEpisodeKind), no metadata as "", and an episode whose hash is the
// SHA-256 of its content keeps only its first 8 bytes (the read derives
// the rest; see episodeHashArg). SQL has no SHA-256, so those rows are read
// in batches and written back here.
func migrateEpisodes(ctx context.Context, e *executor) error {
	if _, err := e.exec(ctx, `UPDATE episodes SET kind = `+episodeKindSQL("kind")+`,
	metadata = CASE metadata WHEN 'null' THEN '' ELSE metadata END`); err != nil {
		return mapErr(err)
	}
	type short struct {
		rowid int64
		b     any
	}
	var after int64
	for {
		rows, err := e.query(ctx, `SELECT rowid, content, content_hash FROM episodes
		WHERE rowid > ? AND typeof(content_hash) = 'blob' AND length(content_hash) = 32 ORDER BY rowid LIMIT ?`, after, packBatch)
		if err != nil {
			return mapErr(err)
		}
		var batch []short
		n := 0
		for rows.Next() {
			var (
				rowid   int64
				content string
				h       []byte
			)
			if err := rows.Scan(&rowid, &content, &h); err != nil {
				rows.Close()
				return mapErr(err)
			}
			n++
			after = rowid
			if b, ok := episodeHashArg(hex.EncodeToString(h), content).([]byte); ok && len(b) == derivedHashLen {
				batch = append(batch, short{rowid, b})
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return mapErr(err)
		}
		for _, s := range batch {
			if _, err := e.exec(ctx, `UPDATE episodes SET content_hash = ? WHERE rowid = ?`, s.b, s.rowid); err != nil {
				return mapErr(err)
			}
		}
		if n < packBatch {
			return nil
		}
	}
}
