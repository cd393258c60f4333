package sqlite

import (
	"context"
)

// migrateSaidOnce is migration 0027's rewrite of existing rows into the
// forms the store now writes (see 0027_said_once.sql): episodes' speaker,
// admissions' decision and operation as codes, and a version's evidence span over all
// of its content, the first evidence episode's, as "~" alone.
func migrateSaidOnce(ctx context.Context, e *executor) error {
	if _, err := e.exec(ctx, `UPDATE episodes SET speaker = `+speakers.sql("speaker")+` WHERE speaker <> ''`); err != nil {
		return mapErr(err)
	}
	if _, err := e.exec(ctx, `UPDATE admissions SET decision = `+decisions.sql("decision")+`,
	operation = `+symSQL("operation")); err != nil {
		return mapErr(err)
	}
	if _, err := e.exec(ctx, qAdmissionsReinforcements); err != nil {
		return mapErr(err)
	}
	if _, err := e.exec(ctx, `UPDATE versions SET evidence_spans = '`+spansWhole+`'
	WHERE evidence_spans LIKE '~0:0:%'
	  AND evidence_spans = '~0:0:' || length(CAST(`+versionContentExpr+` AS BLOB))`); err != nil {
		return mapErr(err)
	}
	return nil
}

// qAdmissionsReinforcements makes the partial index of REINFORCE
// admissions on the stored code (PruneReinforcements' queries name it the
// same way: reinforceLiteral).
var qAdmissionsReinforcements = `CREATE INDEX admissions_reinforcements ON admissions (namespace, memory_id, created_at, id)
	WHERE operation = ` + reinforceLiteral
