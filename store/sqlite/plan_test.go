package sqlite

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Every query the engine runs on a hot path must reach its rows through an
// index that starts with the namespace; a full scan of a table would make
// each tenant pay for every other tenant's rows. API keys are the exception
// that proves it: found by hash or id (which establish the namespace), or
// listed across namespaces by an admin, each still through an index.
func TestQueryPlansUseIndexes(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), templatePath(t, "plan.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	one := []string{"x"}
	lq := func(q string, _ []any, _ error) string { return q }
	// Each query and the index its first table step must use.
	queries := map[string]struct{ q, index string }{
		"GetEpisode":               {qGetEpisode, "sqlite_autoindex_episodes_1 (namespace=? AND id=?)"},
		"ScanEpisodes":             {qScanEpisodes, "sqlite_autoindex_episodes_1 (namespace=?)"},
		"ListEpisodes":             {lq(listEpisodesQuery(memory.ListEpisodesParams{})), "episodes_by_time (namespace=?)"},
		"ListEpisodes/session":     {lq(listEpisodesQuery(memory.ListEpisodesParams{SessionID: "s"})), "episodes_by_session (namespace=? AND session_id=?)"},
		"ListEpisodes/hash":        {lq(listEpisodesQuery(memory.ListEpisodesParams{ContentHash: "h"})), "episodes_by_hash (<expr>=?)"},
		"ListEpisodes/ids":         {lq(listEpisodesQuery(memory.ListEpisodesParams{IDs: one})), "sqlite_autoindex_episodes_1 (namespace=? AND id=?)"},
		"GetMemory":                {qGetMemory, "memories USING PRIMARY KEY (namespace=? AND id=?)"},
		"FindMemory":               {qFindMemory, "memories_slot (namespace=? AND slot_hash=?)"},
		"ReadSlotHead/slot":        {qSlot, "memories_slot (namespace=? AND slot_hash=?)"},
		"ReadSlotHead/live":        {qSlotLive, "sqlite_autoindex_versions_2 (namespace=? AND memory_id=?)"},
		"ScanMemories":             {qScanMemories, "memories USING PRIMARY KEY (namespace=?)"},
		"GetVersion":               {qGetVersion, "sqlite_autoindex_versions_1 (namespace=? AND id=?)"},
		"UpdateVersionState":       {qUpdateVersionState, "sqlite_autoindex_versions_1 (namespace=? AND id=?)"},
		"ScanVersions":             {qScanVersions, "sqlite_autoindex_versions_1 (namespace=?)"},
		"StreamVersions":           {qStreamVersions, "sqlite_autoindex_versions_1 (namespace=?)"},
		"ListVersions/memory":      {lq(listVersionsQuery(memory.ListVersionsParams{MemoryID: "m"})), "sqlite_autoindex_versions_2 (namespace=? AND memory_id=?)"},
		"ListVersions/ids":         {lq(listVersionsQuery(memory.ListVersionsParams{IDs: one})), "sqlite_autoindex_versions_1 (namespace=? AND id=?)"},
		"ListVersions/statuses":    {lq(listVersionsQuery(memory.ListVersionsParams{Statuses: []memory.Status{"active", "contested"}})), "sqlite_autoindex_versions_1 (namespace=?)"},
		"ListVersions/not-active":  {lq(listVersionsQuery(memory.ListVersionsParams{Statuses: []memory.Status{"contested"}})), "versions_not_active (namespace=? AND status=?)"},
		"HistoryOver":              {qHistoryOver, "versions_not_active (namespace=? AND status=?)"},
		"ListVersions/subject+key": {lq(listVersionsQuery(memory.ListVersionsParams{Subject: "s", Key: "k"})), "memories_slot (namespace=? AND slot_hash=?)"},
		"ListVersions/key":         {lq(listVersionsQuery(memory.ListVersionsParams{Key: "k"})), "memories USING PRIMARY KEY (namespace=?)"},
		"ListUnsettledVersions":    {qUnsettledVersions, "versions_unsettled (namespace=?)"},
		"PageVersions":             {lq(pageVersionsQuery(memory.PageVersionsParams{Limit: 50})), "versions_by_recency (namespace=?)"},
		"PageVersions/after":       {lq(pageVersionsQuery(memory.PageVersionsParams{Limit: 50, After: &memory.VersionCursor{ID: "x"}})), "versions_by_recency (namespace=? AND recorded_at<?)"},
		"PageVersions/filtered":    {lq(pageVersionsQuery(memory.PageVersionsParams{Limit: 50, Statuses: []memory.Status{"active"}, Subject: "s", Text: "t"})), "versions_by_recency (namespace=?)"},
		"ListVersions/all":         {lq(listVersionsQuery(memory.ListVersionsParams{})), "versions"},
		"ListAdmissions/decision":  {lq(listAdmissionsQuery(memory.ListAdmissionsParams{Decision: "quarantine"})), "admissions_by_time (namespace=?)"},
		"ListAdmissions":           {lq(listAdmissionsQuery(memory.ListAdmissionsParams{})), "admissions_by_time (namespace=?)"},
		"ListAdmissions/memory":    {lq(listAdmissionsQuery(memory.ListAdmissionsParams{MemoryID: "m"})), "admissions_by_memory (<expr>=?)"},
		"ListAdmissions/episode":   {lq(listAdmissionsQuery(memory.ListAdmissionsParams{EpisodeID: "e"})), "admissions_by_episode (<expr>=?)"},
		"GetTrace":                 {qGetTrace, "sqlite_autoindex_traces_1 (namespace=? AND id=?)"},
		"ScanAdmissions":           {qScanAdmissions, "admissions_by_time (namespace=?)"},
		"ScanTraces":               {qScanTraces, "traces_by_time (namespace=?)"},
		"ListTraces":               {lq(listTracesQuery(memory.ListTracesParams{})), "traces_by_time (namespace=?)"},
		"ListTraces/since":         {lq(listTracesQuery(memory.ListTracesParams{Since: time.Unix(1, 0)})), "traces_by_time (namespace=? AND created_at>?)"},
		"Stats":                    {qStats, "episodes_by_time (namespace=?)"},
		"Namespaces":               {qNamespaces, "episodes_by_time"},
		"APIKeyByHash":             {qAPIKeyByHash, "api_keys_by_hash (hash=?)"},
		"APIKeyByID":               {qAPIKeyByID, "sqlite_autoindex_api_keys_1 (id=?)"},
		"RevokeAPIKey":             {qRevokeAPIKey, "sqlite_autoindex_api_keys_1 (id=?)"},
		"ListAPIKeys":              {qListAPIKeys, "api_keys_by_namespace (namespace=?)"},
		"ListAPIKeys/all":          {qListAllAPIKeys, "api_keys_by_time"},
		"CountActiveAPIKeys":       {qCountActiveAPIKeys, "api_keys_active (revoked_at=?)"},
		"WaitingExtractionJob":     {qWaitingJob, "PRIMARY KEY (namespace=?)"},
		"ClaimExtraction/claim":    {qClaimUnclaimed, "extraction_backlog_order (namespace=? AND job_id=?)"},
		"ClaimExtraction/list":     {qClaimed, "extraction_backlog_order (namespace=? AND job_id=?)"},
		"InsertChange":             {qInsertChange, "changes USING PRIMARY KEY (namespace=?)"},
		"ListChanges":              {qListChanges, "changes USING PRIMARY KEY (namespace=? AND seq>?)"},
		"LastChange":               {qLastChange, "changes USING PRIMARY KEY (namespace=?)"},
		"FinishExtraction":         {qFinishEpisode, "extraction_backlog_by_job (namespace=? AND job_id=? AND episode_id=?)"},
		"ListSessionSummaries":     {qListSessionSummaries, "session_summaries USING PRIMARY KEY (namespace=?)"},
		"ListEpisodeStubs/all":     {lq(listStubsQuery(memory.ListEpisodeStubsParams{})), "episode_stubs USING PRIMARY KEY (namespace=?)"},
		"ListProcedureUses":        {lq(listProcedureUsesQuery(memory.ListProcedureUsesParams{})), "procedure_uses USING PRIMARY KEY (namespace=?)"},
		"ListFeedback":             {lq(listFeedbackQuery(memory.ListFeedbackParams{})), "sqlite_autoindex_feedback_1 (namespace=?)"},
		"ListEpisodes/hash+time":   {lq(listEpisodesQuery(memory.ListEpisodesParams{ContentHash: "h", OccurredAt: time.Unix(1, 0)})), "episodes_by_hash (<expr>=?)"},
		"Archive/last":             {qArchiveLast, "episode_archive_key (namespace=? AND session_id=?)"},
		"Archive/session":          {qArchiveSession, "episode_archive_key (namespace=? AND session_id=?)"},
		"Archive/id":               {qArchiveByID, "episode_archive_by_id (namespace=? AND last_id>?)"},
		"Archive/time":             {qArchiveByTime, "episode_archive_by_time (namespace=? AND last_at>?)"},
		"Archive/all":              {qArchiveAll, "episode_archive_key (namespace=?)"},
		"GetSession":               {qGetSession, "episodes_by_session (namespace=? AND session_id=?)"},
		"DueSessions":              {qDueSessions, "episodes_by_session (namespace=?)"},
		"FoldableSessions":         {qFoldableSessions, "session_summaries_unfolded (namespace=? AND last_at<?)"},
		"ReinforcedOver":           {qReinforcedOver, "admissions_reinforcements (namespace=?)"},
		"DeleteVersion":            {qDeleteVersion, "sqlite_autoindex_versions_1 (namespace=? AND id=?)"},
		"DeleteSlotVersions":       {qDeleteSlotVersions, "sqlite_autoindex_versions_2 (namespace=? AND memory_id=?)"},
		"DeleteSlotAdmissions":     {qDeleteSlotAdmissions, "admissions_by_memory (<expr>=?)"},
		"DeleteSlotFeedback":       {qDeleteSlotFeedback, "feedback_by_memory (namespace=? AND memory_id=?)"},
		"DeleteVersionFeedback":    {qDeleteVersionFeedback, "feedback_by_version (namespace=? AND version_id=?)"},
		"HistoryAdmissions":        {qHistoryAdmissions, "admissions_by_memory (<expr>=?)"},
		"HistoryDelete":            {qHistoryDelete, "sqlite_autoindex_versions_2 (namespace=? AND memory_id=?)"},
		"PurgeAdmissions":          {qPurgeAdmissions, "admissions_by_episode (<expr>=?)"},
		"UpdateStub":               {qUpdateStub, "episode_stubs USING PRIMARY KEY (namespace=? AND episode_id=?)"},
		"DeleteStub":               {qDeleteStub, "episode_stubs USING PRIMARY KEY (namespace=? AND episode_id=?)"},
		"TaskResults":              {qTaskResults, "episodes_task_results_by_time (namespace=?)"},
		"SessionTaskResults":       {qSessionTaskResults, "episodes_task_results (namespace=? AND session_id=?)"},
		"TracesAfter":              {qTracesAfter, "traces_by_time (namespace=? AND created_at>?)"},
		"ReinforcementsDelete":     {qReinforcementsDelete, "admissions_reinforcements (namespace=? AND memory_id=?)"},
	}
	// The statements of the episode's delete trigger, with OLD's values
	// as parameters (EXPLAIN cannot reach into a trigger).
	for i, stmt := range triggerStatements(t, s, "episodes_unshare_on_delete") {
		index := map[string]string{"admissions": "admissions_by_episode (<expr>=?)",
			"versions": "versions_episode_text (<expr>=?)"}[strings.Fields(stmt)[1]]
		queries["EpisodeDeleteTrigger/"+strconv.Itoa(i)] = struct{ q, index string }{stmt, index}
	}
	for i, stmt := range triggerStatements(t, s, "versions_unref_admissions") {
		queries["VersionDeleteTrigger/"+strconv.Itoa(i)] = struct{ q, index string }{stmt, "admissions_by_memory (<expr>=?)"}
	}
	queries["AdmissionVersionID"] = struct{ q, index string }{`SELECT ` + admissionVersionID + ` FROM admissions WHERE namespace = ?`,
		"sqlite_autoindex_versions_2 (namespace=? AND memory_id=? AND seq=?)"}
	for name, c := range queries {
		rows, err := s.reader.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+c.q, fakeArgs(c.q)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if !strings.Contains(strings.Join(plan, "\n"), c.index) {
			t.Errorf("%s: plan does not use %s:\n  %s", name, c.index, strings.Join(plan, "\n  "))
		}
		for _, step := range plan {
			for _, table := range []string{"episodes", "memories", "versions", "admissions", "traces", "api_keys", "episode_archive", "session_summaries", "changes"} {
				// "SCAN t USING INDEX" walks an index in order: fine.
				// A bare "SCAN t" reads every row of every tenant.
				if step == "SCAN "+table || strings.HasPrefix(step, "SCAN "+table+" ") && !strings.Contains(step, "INDEX") {
					t.Errorf("%s: full scan of %s:\n  %s", name, table, strings.Join(plan, "\n  "))
				}
			}
		}
	}
}

// triggerStatements returns the statements of a trigger's body with each
// OLD.column as a parameter.
func triggerStatements(t *testing.T, s *Store, name string) []string {
	t.Helper()
	var body string
	if err := s.reader.QueryRowContext(t.Context(), `SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, name).Scan(&body); err != nil {
		t.Fatalf("trigger %s: %v", name, err)
	}
	_, body, _ = strings.Cut(body, "BEGIN")
	body = body[:strings.LastIndex(body, "END")]
	body = regexp.MustCompile(`OLD\.\w+`).ReplaceAllString(body, "?")
	var out []string
	for _, stmt := range strings.Split(body, ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			out = append(out, stmt)
		}
	}
	if len(out) == 0 {
		t.Fatalf("trigger %s: no statements", name)
	}
	return out
}

// fakeArgs supplies one placeholder value per parameter; EXPLAIN needs
// them bound but ignores their values.
func fakeArgs(q string) []any {
	n := strings.Count(q, "?")
	if m := numberedParam.FindAllStringSubmatch(q, -1); m != nil {
		n = 0 // ?1, ?2, ...: as many as the highest number
		for _, g := range m {
			k, _ := strconv.Atoi(g[1])
			n = max(n, k)
		}
	}
	args := make([]any, n)
	for i := range args {
		args[i] = "x"
	}
	return args
}

var numberedParam = regexp.MustCompile(`\?(\d+)`)
