package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/mnemon-dev/mnemon/memory"
)

// Every query on a hot path must reach its rows through an index that
// starts with the namespace; a sequential scan would make each tenant pay
// for every other tenant's rows. The tables are empty here, where a
// sequential scan is cheapest, so the check turns sequential scans off:
// the planner then picks an index wherever one serves the query, and a
// "Seq Scan" left in a plan means none does. API keys are the exception
// that proves the rule: found by hash or id, which establish the
// namespace, or listed across namespaces by an admin, each through an index.
func TestQueryPlansUseIndexes(t *testing.T) {
	ctx := t.Context()
	raw := os.Getenv("MNEMON_TEST_POSTGRES")
	if raw == "" {
		raw = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	admin, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Skipf("no PostgreSQL at MNEMON_TEST_POSTGRES: %v", err)
	}
	defer admin.Close(context.Background())
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "mnemon_plan_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") }()
	u, err := url.Parse(raw)
	if err != nil {
		t.Skipf("MNEMON_TEST_POSTGRES is not a URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	s, err := Open(ctx, u.String(), Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}

	one := []string{"x"}
	lq := func(q string, _ ...any) string { return q }
	lqe := func(q string, _ []any, _ error) string { return q }
	lqa := func(q string, _ []any) string { return q }
	// Each query, and the index its plan must use where the choice does
	// not depend on statistics ("" for any index whose condition starts
	// with the namespace).
	queries := map[string]struct{ q, index string }{
		"GetEpisode":               {qGetEpisode, ""},
		"ScanEpisodes":             {qScanEpisodes, ""},
		"ListEpisodes":             {lqe(listEpisodesQuery(memory.ListEpisodesParams{Namespace: "n"})), ""},
		"ListEpisodes/session":     {lqe(listEpisodesQuery(memory.ListEpisodesParams{Namespace: "n", SessionID: "s"})), ""},
		"ListEpisodes/hash":        {lqe(listEpisodesQuery(memory.ListEpisodesParams{Namespace: "n", ContentHash: "h"})), ""},
		"ListEpisodes/hash+time":   {lqe(listEpisodesQuery(memory.ListEpisodesParams{Namespace: "n", ContentHash: "h", OccurredAt: time.Unix(1, 0)})), ""},
		"ListEpisodes/ids":         {lqe(listEpisodesQuery(memory.ListEpisodesParams{Namespace: "n", IDs: one})), ""},
		"GetMemory":                {qGetMemory, ""},
		"FindMemory":               {qFindMemory, ""},
		"PrefetchSlots":            {qPrefetchSlots, "memories_slot"},
		"CreateSlot":               {qCreateSlot, ""},
		"InsertVersionLogged":      {qInsertVersionLogged, ""},
		"UpdateVersionStateLogged": {qUpdateVersionStateLogged, ""},
		"ScanMemories":             {qScanMemories, ""},
		"GetVersion":               {qGetVersion, ""},
		"UpdateVersionState":       {qUpdateVersionState, ""},
		"SetEmbedding":             {qSetEmbedding, ""},
		"ScanVersions":             {qScanVersions, ""},
		"StreamVersions":           {qStreamVersions, ""},
		"ListVersions":             {lqa(listVersionsQuery(memory.ListVersionsParams{Namespace: "n"})), ""},
		"ListVersions/memory":      {lqa(listVersionsQuery(memory.ListVersionsParams{Namespace: "n", MemoryID: "m", WithoutEmbeddings: true})), ""},
		"ReadSlotHead/live":        {qSlotLive, ""},
		"ListVersions/ids":         {lqa(listVersionsQuery(memory.ListVersionsParams{Namespace: "n", IDs: one})), ""},
		"ListVersions/statuses":    {lqa(listVersionsQuery(memory.ListVersionsParams{Namespace: "n", Statuses: []memory.Status{"active"}})), ""},
		"ListVersions/subject+key": {lqa(listVersionsQuery(memory.ListVersionsParams{Namespace: "n", Subject: "s", Key: "k"})), ""},
		"PageVersions":             {lqe(pageVersionsQuery(memory.PageVersionsParams{Namespace: "n", Limit: 50})), "versions_by_time"},
		"PageVersions/after":       {lqe(pageVersionsQuery(memory.PageVersionsParams{Namespace: "n", Limit: 50, After: &memory.VersionCursor{ID: "x"}})), "versions_by_time"},
		"ListAdmissions/decision":  {lqa(listAdmissionsQuery(memory.ListAdmissionsParams{Namespace: "n", Decision: "quarantine"})), ""},
		"ListUnsettledVersions":    {qUnsettledVersions, "versions_unsettled"},
		"ListAdmissions":           {lqa(listAdmissionsQuery(memory.ListAdmissionsParams{Namespace: "n"})), ""},
		"ListAdmissions/memory":    {lqa(listAdmissionsQuery(memory.ListAdmissionsParams{Namespace: "n", MemoryID: "m"})), ""},
		"ListAdmissions/episode":   {lqa(listAdmissionsQuery(memory.ListAdmissionsParams{Namespace: "n", EpisodeID: "e"})), ""},
		"ScanAdmissions":           {qScanAdmissions, ""},
		"GetTrace":                 {qGetTrace, ""},
		"ScanTraces":               {qScanTraces, ""},
		"ListTraces":               {lqe(listTracesQuery(memory.ListTracesParams{Namespace: "n"})), ""},
		"ListTraces/since":         {lqe(listTracesQuery(memory.ListTracesParams{Namespace: "n", Since: time.Unix(1, 0)})), ""},
		"PruneTraces":              {qPruneTraces, ""},
		"Stats":                    {qStats, ""},
		"Namespaces":               {qNamespaces, ""},
		"APIKeyByHash":             {qAPIKeyByHash, "api_keys_by_hash"},
		"APIKeyByID":               {qAPIKeyByID, "api_keys_pkey"},
		"RevokeAPIKey":             {qRevokeAPIKey, "api_keys_pkey"},
		"ListAPIKeys":              {qListAPIKeys, "api_keys_by_namespace"},
		"ListAPIKeys/all":          {qListAllAPIKeys, "api_keys_by_time"},
		"CountActiveAPIKeys":       {qCountActiveAPIKeys, "api_keys_active"},
		"WaitingExtractionJob":     {qWaitingJob, ""},
		"ClaimExtraction/claim":    {qClaimUnclaimed, ""},
		"ClaimExtraction/list":     {qClaimed, ""},
		"FinishExtraction":         {qFinishEpisodes, ""},
		"ListChanges":              {qListChanges, ""},
		"LastChange":               {qLastChange, ""},
		"PruneCut":                 {qPruneCut, ""},
		"PruneChanges":             {qPruneChanges, ""},
		"ListFeedback":             {lq(`SELECT ` + feedbackCols + ` FROM feedback WHERE namespace = $1 ORDER BY created_at, id LIMIT $2`), ""},
		"GetSession":               {qGetSession, ""},
		"DueSessions":              {qDueSessions, ""},
		"GetSessionSummary":        {qGetSessionSummary, ""},
		"ListSessionSummaries":     {qListSessionSummaries, ""},
		"FoldableSessions":         {qFoldableSessions, "session_summaries_unfolded"},
		"FoldSessions":             {qFoldSessions, ""},
		"SetPurgedMetadata":        {qSetPurgedMetadata, ""},
		"UpdateStub":               {qUpdateStub, ""},
		"DeleteStub":               {qDeleteStub, ""},
		"PurgeEpisode":             {qPurgeEpisode, ""},
		"PurgeAdmissions":          {qPurgeAdmissions, ""},
		"DeleteSlotVersions":       {qDeleteSlotVersions, ""},
		"DeleteSlotAdmissions":     {qDeleteSlotAdmissions, ""},
		"DeleteSlotFeedback":       {qDeleteSlotFeedback, ""},
		"DeleteVersions":           {qDeleteVersions, ""},
		"DeleteVersionFeedback":    {qDeleteVersionFeedback, ""},
		"HistoryOver":              {qHistoryOver, ""},
		"HistoryDelete":            {qHistoryDelete, ""},
		"HistoryAdmissions":        {qHistoryAdmissions, ""},
		"ReinforcedOver":           {qReinforcedOver, "admissions_reinforcements"},
		"ReinforcementsDelete":     {qReinforcementsDelete, "admissions_reinforcements"},
		"TaskResults":              {qTaskResults, ""},
		"SessionTaskResults":       {qSessionTaskResults, ""},
		"TracesAfter":              {qTracesAfter, ""},
		"ListProcedureUses":        {lq(`SELECT ` + procedureUseCols + ` FROM procedure_uses WHERE namespace = $1 ORDER BY packed_at, memory_id, session_id LIMIT $2`), ""},
		"SettleUse":                {qSettleUse, ""},
	}
	for name, c := range queries {
		sd, err := conn.Conn().Prepare(ctx, "", "EXPLAIN "+c.q)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, c.q)
		}
		args := make([]any, len(sd.ParamOIDs))
		for i, oid := range sd.ParamOIDs {
			if args[i] = fakeArg(oid); args[i] == nil {
				t.Fatalf("%s: no fake value for parameter $%d of type %d", name, i+1, oid)
			}
		}
		rows, err := conn.Query(ctx, "EXPLAIN "+c.q, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := strings.Join(plan, "\n  ")
		if c.index != "" && !strings.Contains(text, c.index) {
			t.Errorf("%s: plan does not use %s:\n  %s", name, c.index, text)
		}
		if strings.Contains(text, "Seq Scan") {
			t.Errorf("%s: sequential scan:\n  %s", name, text)
		}
		if !strings.HasPrefix(name, "APIKey") && !strings.HasPrefix(name, "ListAPIKeys") &&
			name != "RevokeAPIKey" && name != "CountActiveAPIKeys" {
			for i, line := range plan {
				if !strings.Contains(line, "Index Scan") && !strings.Contains(line, "Index Only Scan") {
					continue
				}
				if i+1 >= len(plan) || !namespaceCond.MatchString(plan[i+1]) {
					t.Errorf("%s: an index scan not bounded by the namespace:\n  %s", name, text)
				}
			}
		}
	}
}

// namespaceCond is an index condition that starts with the namespace: one
// tenant's rows (or, for Namespaces, a seek to the next tenant).
var namespaceCond = regexp.MustCompile(`Index Cond: \(+(\w+\.)?namespace (=|>|IS NOT NULL)`)

// fakeArg is a value of the parameter type oid; EXPLAIN needs parameters
// bound but the plan is about their shape.
func fakeArg(oid uint32) any {
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID:
		return "{}" // also valid JSON, for the parameters cast to jsonb
	case pgtype.Int8OID:
		return int64(1)
	case pgtype.Int4OID:
		return int32(1)
	case pgtype.Float8OID:
		return 1.0
	case pgtype.BoolOID:
		return true
	case pgtype.ByteaOID:
		return []byte{}
	case pgtype.TextArrayOID:
		return []string{"{}"}
	case pgtype.Int8ArrayOID:
		return []int64{1}
	}
	return nil
}
