package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Retrieval limits and defaults.
const (
	DefaultLimit       = 10
	MaxLimit           = 100
	DefaultTokenBudget = 1000
	MaxTokenBudget     = 200000
	MaxQueryBytes      = 4096
)

// RetrieveParams asks for the memories that matter for a task.
type RetrieveParams struct {
	Namespace   string
	Query       string
	Limit       int // items packed at most; 0: the default, 10
	TokenBudget int // tokens the context may use; 0: the default, 1000
	TaskType    string
	// Scope names who asks. Agent, user and project are hard filters
	// (memory.Scope.Visible); the session only ranks the current
	// conversation's items a little higher, unless SessionOnly.
	Scope memory.Scope
	// SessionOnly serves only items of Scope.SessionID (which it needs).
	SessionOnly bool
	AsOf        *time.Time // valid time: what was true then
	// KnownAt is record time: what mnemon held then. Versions recorded
	// after it are left out, and one superseded or expired since (its
	// last state change after KnownAt) counts as current. Forgotten
	// memories stay forgotten.
	KnownAt        *time.Time
	IncludeHistory bool // also serve superseded and expired versions
	// Disable turns channels off by name (ablations).
	Disable []string
	// Context shows each packed episode with up to this many episodes
	// before and after it from the same conversation (1 to MaxContext;
	// see ContextLine); their tokens count against the budget. 0 takes
	// the engine's default (Config.Context, DefaultContext unless set);
	// NoContext shows episodes alone.
	Context int

	// ended is set by Retrieve for KnownAt: history candidate → the record
	// time it stopped being current (see endedAtLocked).
	ended map[string]time.Time
}

// NoContext, as RetrieveParams.Context or Config.Context, shows packed
// episodes without their neighbouring turns.
const NoContext = -1

// Item is one packed memory, with its citation and the reason it is here.
type Item struct {
	MemoryID    string                       `json:"memory_id"`
	VersionID   string                       `json:"version_id"`
	Seq         int                          `json:"seq"`
	Kind        memory.Kind                  `json:"kind"`
	Type        memory.Type                  `json:"type"`
	Subject     string                       `json:"subject"`
	Key         string                       `json:"key"`
	Value       string                       `json:"value,omitempty"`
	Content     string                       `json:"content"`
	Status      memory.Status                `json:"status"`
	Section     string                       `json:"section"`
	Score       float64                      `json:"score"`
	Tokens      int                          `json:"tokens"`
	Trust       float64                      `json:"trust"`
	Uncertainty float64                      `json:"uncertainty"` // see uncertaintyOf
	Action      memory.Action                `json:"action"`
	EpisodeIDs  []string                     `json:"episode_ids"` // with Context: the neighbours' too
	Context     []ContextLine                `json:"context,omitempty"`
	Channels    map[string]memory.ChannelHit `json:"channels"`
	Terms       map[string]float64           `json:"terms"`
	ObservedAt  time.Time                    `json:"observed_at"`
	ValidFrom   time.Time                    `json:"valid_from"`
	ValidTo     *time.Time                   `json:"valid_to,omitempty"`
	Explanation string                       `json:"explanation"`
}

// Result is a packed context and its items, best first.
type Result struct {
	RetrievalID string        `json:"retrieval_id"`
	Context     string        `json:"context"`
	TokensUsed  int           `json:"tokens_used"`
	TokenBudget int           `json:"token_budget"`
	Items       []Item        `json:"items"`
	Candidates  int           `json:"candidates"`
	Duration    time.Duration `json:"-"`
	// ChannelDurations is how long each channel ran, in Channels order
	// (zero for a channel that was off).
	ChannelDurations [numChannels]time.Duration `json:"-"`
	// bufs holds the trace's items and what they point into, for the
	// trace writer to reuse once the trace is written (nil: not reused).
	bufs *traceBufs
	// NamespaceEmpty says the namespace holds nothing yet: nothing was
	// retrieved and no trace was written (a trace would make the namespace
	// exist), so RetrievalID is empty and there is nothing to rate.
	NamespaceEmpty bool `json:"namespace_empty,omitempty"`
	// Notes say where the retrieval left its usual path ("code: detail"):
	// a model provider that failed or ran out of its budget
	// (NoteEmbedderFallback), a namespace still being re-embedded
	// (NoteReembedIncomplete).
	Notes []string `json:"notes,omitempty"`
}

// scored is a candidate on its way through fusion, ranking and packing.
type scored struct {
	en       *entry
	channels memory.ChannelHits
	fused    float64
	terms    memory.Terms
	final    float64
	trust    float64
	action   memory.Action
	lineToks int
	packed   bool
	// before and after are the neighbouring episodes packed with an
	// episode (RetrieveParams.Context), nearest first.
	before, after []*entry
	reason        string
	// source is an episode's sourceStateLocked.
	source string
	// previous says a history candidate was replaced by the current
	// value (set for questions about the past).
	previous bool
	// aboutOther says every fact drawn from an episode is about someone
	// other than the user ("my flatmate is allergic to penicillin").
	aboutOther bool
	// namesAsked says an episode named the person the question asks
	// about, by relation and name ("my sister Oona ..." for "what does
	// my sister do?"): a relation-name fact drawn from it links the two.
	namesAsked bool
	// alsoSaid are the evidence episodes of candidates left out because
	// they say the same words: the item cites them too.
	alsoSaid []string
	// via says how a candidate no channel offered came in (a later turn
	// that changed a top one's value, a reply, the user's limits).
	via string
}

// round keeps four decimals of every score: enough to explain a ranking,
// and it halves the size of the trace written for every retrieval.
func (c *scored) round() {
	c.fused, c.final, c.trust = round4(c.fused), round4(c.final), round4(c.trust)
	for i := range c.channels {
		c.channels[i].Score = round4(c.channels[i].Score)
	}
	for i := range c.terms {
		c.terms[i].Value = round4(c.terms[i].Value)
	}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Retrieve runs the read path: scope and lifecycle filter, channels
// concurrently, weighted RRF, utility ranking, critical reservation, greedy
// packing, and a persisted trace.
func (e *Engine) Retrieve(ctx context.Context, p RetrieveParams) (*Result, error) {
	res, trace, err := e.retrieve(ctx, p)
	if err != nil {
		return nil, err
	}
	e.keepTrace(trace, res.bufs, &res.Notes)
	res.bufs = nil
	return res, nil
}

// NoteTraceNotStored is the note of a retrieval whose trace a read-only
// store could not keep: its retrieval_id names no trace, and feedback on
// it must go to a server that opened the database read-write.
const NoteTraceNotStored = "store.read_only: this server opened the database read-only; the retrieval trace was not stored, so its retrieval_id takes no feedback and has no trace"

// keepTrace queues trace for writing, or, on a read-only store, notes in
// notes that it was not stored.
func (e *Engine) keepTrace(trace *memory.Trace, bufs *traceBufs, notes *[]string) {
	if trace == nil {
		return
	}
	if e.readOnly {
		*notes = append(*notes, NoteTraceNotStored)
		return
	}
	e.traces.AddReusing(trace, bufs)
}

// retrieve is Retrieve without writing the trace, which it returns (nil
// for an empty namespace): Respond records in it which items the answer
// used before writing it, and writes nothing when the model fails.
func (e *Engine) retrieve(ctx context.Context, p RetrieveParams) (*Result, *memory.Trace, error) {
	start := time.Now()
	e.retrieving.Add(1)
	defer e.retrieving.Add(-1)
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, nil, fmt.Errorf("retrieve: %w", err)
	}
	if err := validateRetrieve(&p); err != nil {
		return nil, nil, fmt.Errorf("retrieve: %w", err)
	}
	// Checked before anything is read: the trace stores these times, and a
	// retrieval whose trace cannot be stored could not be explained.
	if err := firstTimeError(checkTimePtr("as_of", p.AsOf), checkTimePtr("known_at", p.KnownAt)); err != nil {
		return nil, nil, fmt.Errorf("retrieve: %w", err)
	}
	if p.Context == 0 {
		p.Context = e.context
	}
	// A namespace that holds nothing answers empty, leaving nothing behind:
	// neither an index nor a trace, which would make the namespace exist.
	if held, err := e.HasNamespace(ctx, ns); err != nil {
		return nil, nil, fmt.Errorf("retrieve: %w", err)
	} else if !held {
		return &Result{TokenBudget: p.TokenBudget, Items: []Item{}, NamespaceEmpty: true, Duration: time.Since(start)}, nil, nil
	}
	st, err := e.namespace(ctx, ns)
	if err != nil {
		return nil, nil, fmt.Errorf("retrieve: %w", err)
	}
	now := e.clock.Now()
	r := e.ranking
	topic := topicOf(p.Query)
	qterms := e.analyzer.QueryTerms(topic)
	keywords := keywordQuery(topic, qterms)
	q := readQuery(p.Query, p.IncludeHistory)
	lexTerms := qterms
	if q.task {
		lexTerms = e.taskTerms(qterms)
	}
	// A question naming a kind of thing in the plural ("which cities has
	// she been to?") asks for its members: the lexical channel also
	// matches the words of that kind ("Lisbon", "Osaka") at SetMembers of
	// a query word's weight.
	var members []string
	if r.SetMembers > 0 {
		members = embed.Members(embed.PluralHeads(e.analyzer, topic), qterms)
	}
	// The trace keeps what the retrieval's model calls cost (none, and no
	// counting, without a model provider).
	ctx, tally := e.tallied(ctx, false)
	qvecs, notes, err := e.queryVectors(ctx, st, topic)
	if err != nil {
		return nil, nil, fmt.Errorf("retrieve: embed query: %w", err)
	}

	keep, admit := filter(st, p), admits(st, p)
	semKeep, semSame := e.semanticKeep(st, keep)
	// The common request's filter is the search index's mark of each
	// version: the lexical and semantic channels ask it of a byte per
	// document, not of the entry looked up by id (a map lookup and a few
	// cache misses, for some 150 documents a search). A semantic keep
	// that also drops another embedder's vectors is asked as it is.
	common := commonMarks && commonRequest(p)
	semCommon := common && semSame
	disabled := make(map[string]bool, len(p.Disable))
	for _, c := range p.Disable {
		disabled[c] = true
	}

	// Each channel returns at most ChannelCap hits. The semantic channel
	// (a scan of the tail rows, the longest by far) runs in a goroutine of
	// its own when a core is there to take it (spread); meanwhile this one
	// runs the lexical channel, the cheap ones (a map lookup or a slice
	// walk) and the structured channel, which needs only the lexical hits.
	// A server already busy with other retrievals runs them all here: a
	// goroutine would wait in a run queue behind theirs, this retrieval's
	// time with it, for no core gained. The hits are the same either way.
	results := make([][]search.Hit, len(Channels))
	var took [numChannels]time.Duration
	// wide is the semantic channel down to SemanticFloorAlone, when it
	// was run so (see below).
	var wide []search.Hit
	wideRun := false
	semantic := func() {
		i := channelIndex(ChannelSemantic)
		began := time.Now()
		if semanticOneScan && e.vectors == nil && r.SemanticFloorAlone < r.SemanticFloor {
			// One scan to the lower floor serves both cases: the best
			// ChannelCap at or above SemanticFloor are its hits at or
			// above it (a prefix: the hits are in score order, and a
			// floor only cuts the tail), and when no word of the query
			// matched (below) the whole list is what a second scan to
			// the lower floor gave.
			alone := r
			alone.SemanticFloor = r.SemanticFloorAlone
			wide, wideRun = e.semanticChannel(ctx, st, qvecs, semKeep, semCommon, alone), true
			results[i] = aboveFloor(wide, r.SemanticFloor)
		} else {
			results[i] = e.semanticChannel(ctx, st, qvecs, semKeep, semCommon, r)
		}
		took[i] = time.Since(began)
	}
	var wg sync.WaitGroup
	spread := false
	if !disabled[ChannelSemantic] {
		// A store's own vector search (a round trip to the database)
		// overlaps this goroutine's work however busy the server is.
		spread = e.vectors != nil || e.coreToSpare()
		if spread {
			wg.Go(semantic)
		}
	}
	if i := channelIndex(ChannelLexical); !disabled[ChannelLexical] {
		began := time.Now()
		results[i] = channel(st, ChannelLexical, members, lexTerms, qvecs, keep, common, admit, r, keywords)
		took[i] = time.Since(began)
	}
	for i, name := range Channels {
		if !disabled[name] && name != ChannelLexical && name != ChannelSemantic && name != ChannelStructured {
			began := time.Now()
			results[i] = channel(st, name, members, qterms, qvecs, keep, common, admit, r, keywords)
			took[i] = time.Since(began)
		}
	}
	structuredScaled := false
	if si := channelIndex(ChannelStructured); !disabled[ChannelStructured] {
		// After the lexical channel: how much of the query its best hit
		// says bounds what a key must cover (see structuredHits).
		began := time.Now()
		st.RLock()
		results[si], structuredScaled = structuredHits(st, qterms, lexicalReach(st, results[channelIndex(ChannelLexical)], qterms), admit, r.ChannelCap, e.stopKeyMin())
		st.RUnlock()
		took[si] = time.Since(began)
	}
	if !disabled[ChannelSemantic] && !spread {
		semantic()
	}
	wg.Wait()
	if si := channelIndex(ChannelSemantic); !disabled[ChannelSemantic] && len(results[channelIndex(ChannelLexical)]) == 0 &&
		len(results[si]) < r.ChannelCap && r.SemanticFloorAlone < r.SemanticFloor {
		// No word of the query matched: the semantic channel is all the
		// evidence there is, so it looks further down, rather than leave
		// the order to the recent channel. Rare at scale, so run again
		// rather than make every query scan to the lower floor.
		if wideRun {
			results[si] = wide
		} else {
			alone := r
			alone.SemanticFloor = r.SemanticFloorAlone
			began := time.Now()
			results[si] = e.semanticChannel(ctx, st, qvecs, semKeep, semCommon, alone)
			took[si] += time.Since(began)
		}
	}

	if len(qterms) > 0 && !relevantHit(results, disabled) {
		// The query has words and none of them found anything: newness
		// alone is no answer to it ("zzq721608 nonexistentterm" drew the
		// ten newest episodes). A query of no content words at all ("what
		// now?") still gets them, as must_include memories always do.
		results[channelIndex(ChannelRecent)] = nil
	}
	// The candidates are dead once the result and the trace are built
	// (both copy what they keep): their memory is reused by the next
	// retrieval, unless a reranker saw them (a model call that could
	// outlive a cancelled request is not worth the reasoning).
	fs := fuseScratches.Get().(*fuseScratch)
	if e.reranker == nil {
		fs.bufs = traceBufPool.Get().(*traceBufs)
	}
	cands := fuse(st, results, structuredScaled, r, fs)
	if p.KnownAt != nil {
		// When each history candidate stopped being current, read once
		// under the lock: packing and ranking look it up without one.
		p.ended = make(map[string]time.Time)
		st.RLock()
		for _, c := range cands {
			if c.en.V.Status.History() {
				p.ended[c.en.V.ID] = endedAtLocked(st, c.en.V)
			}
		}
		st.RUnlock()
	}
	if r.TaskRule != 0 && (q.task || q.userRule()) {
		// A task about food ("book a seafood place for dinner with
		// Sam") asks for the user's allergies and diet as a rule question
		// does: they take the best candidate's fused score, so a name the
		// task shares with a friend's turns does not bury them.
		cands = e.addUserLimits(st, cands, admit, q.userRule() || q.task && q.meal)
	}
	user := e.userTerm()
	if q.self || q.firstPerson || q.ours {
		// "which package manager should I use?" is answered by "the
		// repo uses pnpm": the speaker's team is no other subject.
		q.team = e.teamKey
	}
	// What ranking reads of the index beyond each candidate, read once
	// under the lock: whether an episode's facts speak for it and whom
	// they are about, and for a question about the past, which history
	// the current value replaced.
	st.RLock()
	asked := e.namedTurnsLocked(st, q)
	for _, c := range cands {
		v := c.en.V
		// With history served, a superseded fact still speaks for its
		// turn; for a question about now it covers nothing: the turn
		// is as stale as without history ("I use emacs now" after
		// "switched to helix").
		c.source, c.aboutOther = sourceStateLocked(st, v, p, user, q.team, p.IncludeHistory && !q.past)
		c.namesAsked = asked != nil && v.Kind == memory.KindEpisodic && len(v.EvidenceEpisodeIDs) > 0 && asked[v.EvidenceEpisodeIDs[0]]
		if q.past && v.Status.History() && v.SupersededBy != "" {
			next, ok := st.EntryLocked(v.SupersededBy)
			c.previous = ok && next.Status.Live()
		}
	}
	st.RUnlock()
	for _, c := range cands {
		q.bestFused = max(q.bestFused, c.fused)
	}
	// A task is the user's, whoever it names ("book a table with Sam"):
	// the user's facts are not someone else's.
	q.terms = e.subjectTerms(q.firstPerson || q.task, qterms)
	q.subjects = namedSubjects(cands, q.terms)
	q.namesSubject = len(q.subjects) > 0
	for _, c := range cands {
		e.rank(st, c, p, q, r, now)
	}
	sortRanked(cands)
	if q.self && !q.rule && !q.task {
		// A rule question or a task is answered by the user's limits
		// (TaskRule), not by what the user said after others' news.
		var replied bool
		if cands, replied = e.followReplies(st, cands, keep, q.names); replied {
			sortRanked(cands)
		}
	}
	if q.aboutPast {
		var found bool
		if !q.past {
			// History not served: the value a fact held before the one
			// the question names is served for it all the same.
			if cands, found = e.servePrevious(st, cands, p, q, r, now); found {
				sortRanked(cands)
			}
		}
		if !found {
			if cands, found = e.findEarlier(ctx, st, cands, p.Query, q.self || q.firstPerson, keep, r); found {
				sortRanked(cands)
			}
		}
		if q.past && e.liftReplaced(cands, p.Query) {
			sortRanked(cands)
		}
	}
	if !q.asksEarlier() && (q.self || q.current || q.relation != "") {
		// The user's own values, what holds now, and the user's people
		// ("when is my sister visiting?" after "she cancelled, coming in
		// March instead").
		again := demoteReplaced(st, cands, qterms, r, e.analyzer)
		var followed bool
		if cands, followed = e.followChanges(st, cands, keep, r, q.current, qterms); again || followed {
			sortRanked(cands)
		}
	}
	if !q.aboutPast && !p.IncludeHistory {
		var followed bool
		if cands, followed = e.followSuperseded(st, cands, keep, qterms); followed {
			sortRanked(cands)
		}
	}
	if !q.aboutPast {
		var bridged bool
		if cands, bridged = e.followBridge(st, cands, p, qterms, keep, r); bridged {
			sortRanked(cands)
		}
	}
	if liftRepeatingFacts(cands, 2*p.Limit+10) {
		sortRanked(cands)
	}
	notes = append(notes, e.rerank(ctx, ns, p.Query, cands)...)
	context, used := e.pack(st, keep, cands, p, r)

	res := &Result{
		ChannelDurations: took,
		RetrievalID:      ids.New(ids.Retrieval),
		Context:          context,
		TokensUsed:       used,
		TokenBudget:      p.TokenBudget,
		Candidates:       len(cands),
		Notes:            notes,
		Items:            make([]Item, 0, p.Limit),
	}
	trace := &memory.Trace{
		ID: res.RetrievalID, Namespace: ns, Query: p.Query, Scope: p.Scope, TaskType: p.TaskType,
		Limit: p.Limit, TokenBudget: p.TokenBudget, TokensUsed: used, AsOf: p.AsOf, KnownAt: p.KnownAt,
		IncludeHistory: p.IncludeHistory, CreatedAt: now, Items: fs.bufs.traceItems(len(cands)),
		Notes: slices.Clip(notes), Models: modelUsage(tally),
	}
	for i, c := range cands {
		c.round()
		ti := memory.TraceItem{
			MemoryID: c.en.V.MemoryID, VersionID: c.en.V.ID, Channels: c.channels, Fused: c.fused,
			Terms: c.terms, Final: c.final, Rank: i + 1, Tokens: c.en.V.Tokens, Trust: c.trust,
			Action: c.action, Packed: c.packed, Reason: c.reason,
		}
		if c.packed {
			it := e.item(st, c, qterms, members, viewOf(p))
			ti.Explanation = it.Explanation
			res.Items = append(res.Items, it)
		}
		trace.Items[i] = ti
	}
	res.bufs = fs.bufs
	if e.reranker == nil {
		fs.release()
	}
	res.Duration = time.Since(start)
	trace.DurationMicros = res.Duration.Microseconds()
	return res, trace, nil
}

// coreToSpare reports whether the retrievals in flight (this one among
// them) leave a core for a retrieval's semantic channel to run beside its
// other channels: at most half as many as Go runs goroutines at once.
// One client of a two-core machine gets the second core; two or more share
// them a retrieval a core. spreadChannels, when set (tests), decides
// instead.
func (e *Engine) coreToSpare() bool {
	if spreadChannels != nil {
		return *spreadChannels
	}
	return 2*int(e.retrieving.Load()) <= runtime.GOMAXPROCS(0)
}

// spreadChannels, when not nil (tests), says whether a retrieval runs its
// semantic channel in a goroutine of its own, whatever the load.
var spreadChannels *bool

// semanticOneScan turns on the one semantic scan to SemanticFloorAlone
// (retrieve); a variable so a test can compare it with the two scans.
var semanticOneScan = true

// aboveFloor returns the leading hits scoring at least floor: hits are in
// score order, best first.
func aboveFloor(hits []search.Hit, floor float64) []search.Hit {
	n := 0
	for n < len(hits) && hits[n].Score >= floor {
		n++
	}
	return hits[:n:n]
}

// asks reports whether a turn is a question: it ends with a question mark.
func asks(content string) bool {
	return strings.HasSuffix(strings.TrimRight(content, " \t\n\"')"), "?")
}

// sortRanked orders candidates best first.
func sortRanked(cands []*scored) {
	// The order is total (the id breaks every tie), so no stable sort,
	// and any sort gives it: slices.SortFunc, without sort.Slice's
	// reflection, for a retrieval's two or three sorts of ~150.
	slices.SortFunc(cands, func(a, b *scored) int {
		if a.final != b.final {
			return cmp.Compare(b.final, a.final)
		}
		// At a tie a fact goes before a turn (see liftRepeatingFacts),
		// then the newer observation, then the id, so the order never
		// depends on map iteration or id randomness alone.
		if ae, be := a.en.Episodic, b.en.Episodic; ae != be {
			if be {
				return -1
			}
			return 1
		}
		if c := b.en.V.ObservedAt.Compare(a.en.V.ObservedAt); c != 0 {
			return c
		}
		return strings.Compare(a.en.V.ID, b.en.V.ID)
	})
}

// liftRepeatingFacts gives a fact that says word for word what a turn
// ranked above it says (a note kept from that very turn, say) the turn's
// score, with a term "same_text" that says so: the two are one item, and
// the fact is the better one to show (it carries validity and status);
// packing then skips the turn. Only turns among the first window
// candidates are considered: one ranked lower is not packed anyway. cands
// must be sorted; it reports whether a score changed, so they need
// sorting again.
func liftRepeatingFacts(cands []*scored, window int) bool {
	// Turns by their length without spaces, a cheap first test before the
	// hash that decides; in rank order, on the stack for the usual window.
	var turnsBuf [32]turnLen
	turns := turnsBuf[:0]
	for i := 0; i < len(cands) && i < window; i++ {
		if c := cands[i]; c.en.V.Kind == memory.KindEpisodic {
			turns = append(turns, turnLen{n: int(c.en.Solid), i: i})
		}
	}
	if len(turns) == 0 {
		return false
	}
	var takenBuf [32]bool
	var taken []bool // turns a fact already took the place of
	if len(turns) > len(takenBuf) {
		taken = make([]bool, len(turns))
	} else {
		taken = takenBuf[:len(turns)]
	}
	lifted := false
	for i, c := range cands {
		if c.en.V.Kind == memory.KindEpisodic || c.action == memory.ActionIgnore {
			continue
		}
		if turns[0].i > i {
			continue
		}
		// The entry's count: the content itself is read only when a
		// turn's count is the same (for the hash), not for every fact.
		n := int(c.en.Solid)
		var key uint64
		keyed := false
		for k, t := range turns {
			if t.i > i {
				break
			}
			if t.n != n {
				continue
			}
			if !keyed {
				key, keyed = sameText(c.en.V.Content), true
			}
			if sameText(cands[t.i].en.V.Content) != key {
				continue
			}
			if !taken[k] {
				taken[k] = true
				if gain := cands[t.i].final - c.final; gain > 0 {
					c.terms = append(c.terms, memory.Term{Name: "same_text", Value: gain})
					c.final = cands[t.i].final
					lifted = true
				}
			}
			break // the best turn of this text decides
		}
	}
	return lifted
}

// turnLen is a turn's rank and its length without spaces (solidLen).
type turnLen struct{ n, i int }

// solidLen counts the bytes of s that are not ASCII spacing (index.SolidLen,
// which an entry keeps for its content: Entry.Solid). Texts sameText
// equates have equal counts, but for the rare letter whose lower case is
// longer or shorter in UTF-8, or spacing beyond ASCII: then a lift is only
// missed, never made wrongly (the hash still decides).
func solidLen(s string) int { return index.SolidLen(s) }

func validateRetrieve(p *RetrieveParams) error {
	if err := p.Scope.Validate(); err != nil {
		return err
	}
	if p.SessionOnly && p.Scope.SessionID == "" {
		return memory.Invalidf("session_only needs a session_id: name the session to restrict to")
	}
	if strings.TrimSpace(p.Query) == "" {
		return memory.Invalidf("query is empty")
	}
	if len(p.Query) > MaxQueryBytes {
		return memory.Invalidf("query is %d bytes; the limit is %d", len(p.Query), MaxQueryBytes)
	}
	if !utf8.ValidString(p.Query) {
		return memory.Invalidf("query is not valid UTF-8")
	}
	if p.Context < NoContext || p.Context > MaxContext {
		return memory.Invalidf("context %d: use 1 to %d neighbouring episodes, %d for none, or 0 for the default", p.Context, MaxContext, NoContext)
	}
	switch {
	case p.Limit == 0:
		p.Limit = DefaultLimit
	case p.Limit < 0 || p.Limit > MaxLimit:
		return memory.Invalidf("limit %d: use 1 to %d, or 0 for the default (%d)", p.Limit, MaxLimit, DefaultLimit)
	}
	switch {
	case p.TokenBudget == 0:
		p.TokenBudget = DefaultTokenBudget
	case p.TokenBudget < 0 || p.TokenBudget > MaxTokenBudget:
		return memory.Invalidf("token budget %d: use 1 to %d, or 0 for the default (%d)", p.TokenBudget, MaxTokenBudget, DefaultTokenBudget)
	}
	for _, c := range p.Disable {
		if channelIndex(c) < 0 {
			return memory.Invalidf("unknown channel %q: use %s", c, strings.Join(Channels, ", "))
		}
	}
	return nil
}

func channelIndex(name string) int {
	for i, c := range Channels {
		if c == name {
			return i
		}
	}
	return -1
}

// filter returns the scope and lifecycle filter of a retrieval. It reads
// entries unlocked: call it only inside channel, which holds st.RLock.
func filter(st *nsState, p RetrieveParams) func(id string) bool {
	admit := admits(st, p)
	return func(id string) bool {
		en, ok := st.EntryLocked(id)
		return ok && admit(en)
	}
}

// admits is filter for an entry already looked up: a channel that reads
// the entry anyway (structured, graph) checks it without a second lookup
// in the map of every entry, a cache miss on most calls.
func admits(st *nsState, p RetrieveParams) func(en *entry) bool {
	if commonRequest(p) {
		// The common request: live memories no agent, user or project
		// owns, whatever session they were said in.
		return func(en *entry) bool { return en.Ownerless && en.Status.Live() }
	}
	return func(en *entry) bool { return servableLocked(st, en.V, p) }
}

// commonMarks turns on the search index's marks as the common request's
// filter (see retrieve); a variable so a test can compare them with the
// lookup of each entry.
var commonMarks = true

// commonRequest reports whether p is the common request: live memories no
// agent, user or project owns, whatever session they were said in, now.
func commonRequest(p RetrieveParams) bool {
	return p.AsOf == nil && p.KnownAt == nil && !p.IncludeHistory && !p.Scope.Owned() && !p.SessionOnly
}

// servableLocked reports whether v is served to p. The caller holds st.RLock.
func servableLocked(st *nsState, v *memory.Version, p RetrieveParams) bool {
	if !p.Scope.Visible(v.Scope) || (p.SessionOnly && v.Scope.SessionID != p.Scope.SessionID) {
		return false
	}
	live := v.Status.Live()
	if p.KnownAt != nil {
		if v.RecordedAt.After(*p.KnownAt) {
			return false // not yet known then
		}
		// History now, but it became history after then: current then.
		live = live || (v.Status.History() && endedAtLocked(st, v).After(*p.KnownAt))
	}
	if p.AsOf != nil {
		return (live || v.Status.History()) && v.ValidAt(*p.AsOf)
	}
	if p.IncludeHistory {
		return live || v.Status.History()
	}
	return live
}

// channel runs one retrieval channel, holding st.RLock throughout (the
// search index never calls back into st with its own lock held in a way
// that waits for st's lock: writers release it before touching the index).
// admit is keep for an entry already looked up (see admits); only the
// graph channel reads it.
//
// keywords says the query is a few keywords (keywordQuery): the lexical
// channel then ranks a memory holding every one of them above one holding
// some.
func channel(st *nsState, name string, members []string, qterms []string, qvecs []search.Vector, keep func(string) bool, common bool, admit func(*entry) bool, r Ranking, keywords bool) []search.Hit {
	st.RLock()
	defer st.RUnlock()
	switch name {
	case ChannelLexical:
		if len(members) > 0 && !keywords {
			return st.LexicalRelated(qterms, members, float32(r.SetMembers), r.ChannelCap, keep, common)
		}
		if common {
			return st.LexicalCommon(qterms, r.ChannelCap, keywords)
		}
		if keywords {
			return st.LexicalAllTerms(qterms, r.ChannelCap, keep)
		}
		return st.Lexical(qterms, r.ChannelCap, keep)
	case ChannelSemantic:
		return semanticHits(st, qvecs, keep, common, r)
	case ChannelCritical:
		return criticalHits(st, qterms, keep, r.ChannelCap)
	case ChannelRecent:
		return recentHits(st, keep, r.RecentEpisodes)
	case ChannelGraph:
		return st.GraphHitsLocked(qterms, admit, r.GraphHop2, r.ChannelCap)
	}
	return nil
}

// structuredHits matches query words against memory subjects and keys: a
// question about "editor" finds the slot prefers:editor whatever its value.
//
// reach is the query words the best lexical hit holds. When it holds more
// than one word some key names, a key is scored by how many of them it
// covers as well: for "friday cassandra" the one note holding both words
// came below every note keyed on one of them. A key's score is then the
// share of its own words the query names times the cube of the share of
// reach's keyed words it covers (a key naming one of two counts an eighth),
// relative to the best key, and fusion adds it as it is. Otherwise (one
// keyed word, or no lexical hit: "what dish do you like best?" where only a
// slot alias says dish) keys score as they always did, relative to the best.
// The caller holds st.RLock.
//
// scaled reports that the scores are coverage-scaled: fusion adds them as
// they are, not relative to the channel's best hit.
//
// admit is the retrieval's filter on an entry (see admits): each posting
// is looked up once, and counted by its entry.
func structuredHits(st *nsState, qterms, reach []string, admit func(*entry) bool, k, stopMin int) (hits []search.Hit, scaled bool) {
	if len(qterms) == 0 {
		return nil, false
	}
	// Only servable postings are counted: a common slot's key word lists
	// every version ever written of it, most of them history.
	matched := make(map[*entry]int)
	stopAt := max(stopMin, int(stopKeyShare*float64(st.SizeLocked())))
	reachKeyed := 0 // words of reach some key names
	for i, t := range qterms {
		postings := st.KeyPostingsLocked(t)
		if len(postings) > stopAt {
			// A word in a large share of the keys (a stop key, like a
			// word of low idf) says nothing about which slot is asked
			// for, and walking its postings cost most of a retrieval:
			// "bug" named a seventh of 10,000 notes' keys.
			continue
		}
		if len(postings) > 0 && slices.Contains(reach, t) && !slices.Contains(qterms[:i], t) {
			reachKeyed++
		}
		// Postings are in write order: past maxKeyPostings only the
		// newest are walked, so no query walks more however many slots
		// share the word (at equal scores newer ids rank first anyway).
		for _, id := range postings[max(0, len(postings)-maxKeyPostings):] {
			if en, ok := st.EntryLocked(id); ok && admit(en) {
				matched[en]++
			}
		}
	}
	hits = make([]search.Hit, 0, len(matched))
	best := 0.0
	for en, n := range matched {
		if len(en.KeyTerms) == 0 {
			continue
		}
		score := float64(min(n, len(en.KeyTerms))) / float64(len(en.KeyTerms)) // a posting listed twice after an update
		if slices.Contains(qterms, en.V.Subject) {
			score += 0.25
		}
		if en.V.Kind == memory.KindEpisodic {
			// Keys lent by extracted facts are weaker evidence than the
			// slot itself.
			score *= 0.5
		}
		best = max(best, score)
		if reachKeyed > 1 {
			covered := float64(min(n, reachKeyed)) / float64(reachKeyed)
			score *= covered * covered * covered
		}
		hits = append(hits, search.Hit{ID: en.V.ID, Score: score})
	}
	if reachKeyed > 1 && best > 0 {
		for i := range hits {
			hits[i].Score /= best
		}
		return topHits(hits, k), true
	}
	return topHits(hits, k), false // newer ids first at equal scores
}

// lexicalReach returns the query words the best lexical hit holds. The
// caller holds st.RLock.
func lexicalReach(st *nsState, lexical []search.Hit, qterms []string) []string {
	if len(lexical) == 0 {
		return nil
	}
	var reach []string
	for _, ts := range st.ExplainLexical(lexical[0].ID, qterms) {
		reach = append(reach, ts.Term)
	}
	return reach
}

// The structured channel's bounds (see structuredHits). Only a namespace
// where hundreds of versions share a key word meets the walk bound, and
// thousands the stop key; the quality benchmarks' namespaces do not (their
// figures are the same with and without the bounds). In a namespace that
// does, a slot whose live version is older than the word's 256 newest
// postings is left to the other channels.
const (
	// A query word in the keys of more than stopKeyShare of the
	// namespace's entries, and of more than stopKeyMin, is a stop key.
	stopKeyShare = 0.05
	stopKeyMin   = 1000
	// maxKeyPostings is how many of a word's newest postings are walked.
	maxKeyPostings = 256
)

// stopKeyMin is the engine's stop key floor: stopKeyMin unless a test
// lowered it (testStopKeyMin) to meet it with fewer notes.
func (e *Engine) stopKeyMin() int {
	if e.testStopKeyMin > 0 {
		return e.testStopKeyMin
	}
	return stopKeyMin
}

// criticalHits offers every servable must_include memory, most relevant to
// the query first, so constraints reach the agent even with weak overlap.
func criticalHits(st *nsState, qterms []string, keep func(string) bool, k int) []search.Hit {
	var hits []search.Hit
	for id := range st.CriticalLocked() {
		hits = append(hits, search.Hit{ID: id})
	}
	if len(hits) == 0 {
		return nil
	}
	for i := range hits {
		for _, ts := range st.ExplainLexical(hits[i].ID, qterms) {
			hits[i].Score += ts.Score
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID > hits[j].ID
	})
	return topKept(hits, keep, k)
}

// recentHits offers the latest servable episodes, newest first.
func recentHits(st *nsState, keep func(string) bool, k int) []search.Hit {
	var ids []string
	episodes := st.EpisodesLocked()
	for i := len(episodes) - 1; i >= 0 && len(ids) < 4*k; i-- {
		ids = append(ids, episodes[i])
	}
	hits := make([]search.Hit, 0, k)
	for _, id := range ids {
		if len(hits) == k {
			break
		}
		if keep(id) {
			hits = append(hits, search.Hit{ID: id, Score: 1 / float64(len(hits)+1)})
		}
	}
	return hits
}

func topKept(hits []search.Hit, keep func(string) bool, k int) []search.Hit {
	out := hits[:0]
	for _, h := range hits {
		if len(out) == k {
			break
		}
		if keep(h.ID) {
			out = append(out, h)
		}
	}
	return out
}

// fuse combines the channels' hits into one score per candidate: a
// weighted sum of what each channel gave it, normalised by the best score the
// candidate could have had: the weights of the channels that answered and
// could have found it (only episodes come from the recent channel, only
// must_include memories from the critical one). A candidate first everywhere
// it could be, with a cosine of 1, scores 1.0.
//
// A channel whose score measures relevance on its own scale (lexical BM25,
// semantic cosine, structured key overlap) gives each hit its score relative
// to the channel's best hit (relative score fusion): BM25's large gaps say
// that the second hit is much worse than the first, which a rank cannot say.
// Reciprocal rank fusion (k = RRFK) flattened them, so the fused order was
// worse at the top than the lexical channel alone (LoCoMo dev recall_all@1
// 0.146 against plain BM25's 0.278). The recent and critical channels order
// by recency and must_include, not by relevance: they keep RRF.
//
// A cosine has a scale of its own, from the channel's floor (noise) to 1
// (the same text), so a semantic hit counts by where it stands on it (see
// semanticScore), not relative to the channel's best hit: the built-in
// hashed embedder's cosines are nearly flat, and relative to the best every
// weak semantic hit counted almost as much as the best lexical hit (LoCoMo
// dev recall_all@10 0.520 with the channel, 0.554 without it). When no word
// of the query matched (no lexical hit), the semantic channel is the only
// evidence of relevance: its hits count relative to its best, as before, so
// "any food allergies?" still finds "I'm allergic to peanuts" over the
// merely recent episodes.
//
// structuredScaled says the structured channel's scores are already on a
// scale of their own (see structuredHits): they are added as they are.
func fuse(st *nsState, results [][]search.Hit, structuredScaled bool, r Ranking, fs *fuseScratch) []*scored {
	total := 0
	for _, hits := range results {
		total += len(hits)
	}
	// Pass 1: the candidates, and how many channels found each.
	byID := fs.byID
	ens := fs.ens[:0]
	counts := fs.counts[:0]
	st.RLock()
	for _, hits := range results {
		for _, h := range hits {
			if i, ok := byID[h.ID]; ok {
				counts[i]++
				continue
			}
			en, found := st.EntryLocked(h.ID)
			if !found {
				continue
			}
			byID[h.ID] = len(ens)
			ens = append(ens, en)
			counts = append(counts, 1)
		}
	}
	st.RUnlock()
	fs.ens, fs.counts = ens, counts
	// One allocation for every candidate, of the number found: a candidate
	// is some 220 bytes, and the channels find many twice.
	pool := fs.candidates(len(ens))
	for i, en := range ens {
		pool[i].en = en
	}
	// One backing array for every channel hit and one for every term, so a
	// retrieval allocates a handful of slices, not hundreds of maps. Each
	// candidate's share of the terms is the few rank usually adds; one that
	// gets more grows its own (the capacity is capped, so it never writes
	// into its neighbour's).
	hitsBuf, termsBuf := fs.bufs.hitsAndTerms(total, len(pool)*fusedTerms)
	off := 0
	for i := range pool {
		pool[i].channels = hitsBuf[off : off : off+counts[i]]
		off += counts[i]
		pool[i].terms = termsBuf[i*fusedTerms : i*fusedTerms : (i+1)*fusedTerms]
	}
	// Pass 2: each channel's ranks, the recent channel last: it weighs
	// newness by how relevant the other channels found a candidate.
	answered := make([]bool, len(Channels))
	recent := channelIndex(ChannelRecent)
	lexicalHit := len(results[channelIndex(ChannelLexical)]) > 0
	best := 0.0
	for _, ci := range fuseOrder {
		hits := results[ci]
		if ci == recent {
			for i := range pool {
				best = max(best, pool[i].fused)
			}
		}
		if len(hits) == 0 {
			continue
		}
		answered[ci] = true
		name := Channels[ci]
		w := r.weight(name)
		top := 0.0
		if scoreFused(name) && !(name == ChannelStructured && structuredScaled) {
			top = hits[0].Score
		}
		for rank, h := range hits {
			i, ok := byID[h.ID]
			if !ok {
				continue
			}
			c := &pool[i]
			c.channels = append(c.channels, memory.NamedChannelHit{Channel: name, ChannelHit: memory.ChannelHit{Rank: rank + 1, Score: h.Score}})
			switch {
			case name == ChannelRecent:
				// Newness is no relevance: it orders what the other
				// channels found and adds nothing to what they did not.
				// With no lexical hit every turn is a weak semantic
				// match, so it counts by how close the candidate came to
				// the best (squared): "my pay went up to 54k" stays above
				// a newer "ok fair, got it" for "what do I earn?".
				switch {
				case counts[i] == 1:
				case lexicalHit:
					c.fused += w * (r.RRFK + 1) / (r.RRFK + float64(rank+1))
				case best > 0:
					rel := c.fused / best
					c.fused += w * (r.RRFK + 1) / (r.RRFK + float64(rank+1)) * rel * rel
				}
			case name == ChannelSemantic && lexicalHit:
				c.fused += w * semanticScore(h.Score, r.SemanticFloor)
			case name == ChannelGraph || name == ChannelStructured && structuredScaled:
				// A graph score is on its own scale (hop and match, see
				// GraphHitsLocked): a claim two hops away counts less even
				// when it is the channel's best. So is a coverage-scaled
				// structured score.
				c.fused += w * h.Score
			case top > 0:
				c.fused += w * h.Score / top
			default:
				c.fused += w * (r.RRFK + 1) / (r.RRFK + float64(rank+1))
			}
		}
	}
	order := make([]*scored, len(pool))
	for i := range pool {
		c := &pool[i]
		var norm float64
		for ci, name := range Channels {
			if answered[ci] && eligible(name, c.en) {
				norm += r.weight(name)
			}
		}
		if norm > 0 {
			c.fused /= norm
		}
		order[i] = c
	}
	return order
}

// fuseScratch is what fuse uses and the retrieval drops when it returns:
// the candidates' map by id and the candidates themselves (some 40 KB of a
// retrieval's 110 KB). Reused through fuseScratches, a search allocates
// them only when it finds more candidates than any before it did.
type fuseScratch struct {
	byID   map[string]int
	ens    []*entry
	counts []int
	pool   []scored
	// bufs, when not nil, gives fuse its arrays of channel hits and terms,
	// which the trace keeps (see traceBufs).
	bufs *traceBufs
}

var fuseScratches = sync.Pool{New: func() any { return &fuseScratch{byID: make(map[string]int)} }}

// candidates returns n zeroed candidates.
func (fs *fuseScratch) candidates(n int) []scored {
	if cap(fs.pool) < n {
		fs.pool = make([]scored, n)
	}
	fs.pool = fs.pool[:n]
	clear(fs.pool)
	return fs.pool
}

// release returns fs to fuseScratches once nothing holds its candidates.
// Their slices (channels, terms) are fuse's own allocations, which the
// trace keeps; fs holds only the candidates, cleared so they keep no
// entry alive.
func (fs *fuseScratch) release() {
	clear(fs.byID)
	clear(fs.ens)
	clear(fs.pool)
	fs.ens, fs.counts, fs.pool = fs.ens[:0], fs.counts[:0], fs.pool[:0]
	fs.bufs = nil
	fuseScratches.Put(fs)
}

// relevantHit reports whether a channel that measures relevance (not
// newness, not must_include) found anything; true as well when the caller
// disabled both text channels (lexical and semantic), which judge whether
// the query's words match anything at all.
func relevantHit(results [][]search.Hit, disabled map[string]bool) bool {
	if disabled[ChannelLexical] && disabled[ChannelSemantic] {
		return true
	}
	for i, hits := range results {
		if name := Channels[i]; name != ChannelRecent && name != ChannelCritical && len(hits) > 0 {
			return true
		}
	}
	return false
}

// relationWord reports whether w names one of someone's people, in the
// singular or the plural ("cousins", "flatmates").
func relationWord(w string) bool {
	return extract.IsRelationNoun(w) || extract.IsRelationNoun(strings.TrimSuffix(w, "s"))
}

// isAgentSpeaker reports whether a turn's speaker is the agent: the name
// an unattributed agent_message gets, or "agent".
func isAgentSpeaker(s string) bool {
	return strings.EqualFold(s, AgentSpeaker) || strings.EqualFold(s, "agent")
}

// fuseOrder is the order fuse adds the channels in: the recent channel
// after those that measure relevance.
var fuseOrder = func() []int {
	var order []int
	for i, name := range Channels {
		if name != ChannelRecent {
			order = append(order, i)
		}
	}
	return append(order, channelIndex(ChannelRecent))
}()

// maxTerms is how many utility terms rank can add to one candidate.
const maxTerms = 16

// fusedTerms is the room fuse gives each candidate's terms in one shared
// array: usefulness and confidence always, rarely more than four others.
// Room for maxTerms each was a quarter of the bytes a retrieval allocated
// (45 of 190 KB for the 118 candidates of a peers-workload query).
const fusedTerms = 6

// eligible reports whether a channel can return en at all, from what the
// entry keeps of its version (fusion asks it of every candidate).
func eligible(channel string, en *entry) bool {
	switch channel {
	case ChannelRecent:
		return en.Episodic
	case ChannelCritical:
		return en.V.Criticality == memory.CriticalityMustInclude
	case ChannelGraph:
		return en.Projectable
	}
	return true
}

// subjectTerms are the terms by which a query names whom it asks about: its
// own, and for a question in the first person ("what car do I drive?") the
// user, under whom mnemon files what the user says. So the user's
// flatmate's employer does not answer "which company do I work for?".
func (e *Engine) subjectTerms(firstPerson bool, qterms []string) []string {
	if !firstPerson {
		return qterms
	}
	user := e.analyzer.QueryTerms(DefaultSpeaker)
	if len(user) == 0 || slices.Contains(qterms, user[0]) {
		return qterms
	}
	return append(slices.Clip(qterms), user[0])
}

// addUserLimits adds the user's standing limits to the candidates of a
// task or of a question after the user's rules, whatever their words:
// "anything to keep in mind if I cook tonight?" shares no word, and little
// meaning, with "no dairy for me this month", which binds it. A limit is a
// live fact of the user keyed as one (constraint:…, allergic_to:…,
// avoids:…, diet: e.limitKeys), newest first, at most maxLimitCandidates; the TaskRule term
// ranks them. For a task they have no fused score (no channel found
// them); a question after the user's rules asks for them, so they take the
// best candidate's, and the TaskRule term puts them above what only
// matched its words.
func (e *Engine) addUserLimits(st *nsState, cands []*scored, admit func(*entry) bool, asked bool) []*scored {
	have := make(map[string]bool, len(cands))
	best := 0.0
	for _, c := range cands {
		have[c.en.V.ID] = true
		best = max(best, c.fused)
	}
	if !asked {
		best = 0
	}
	added := 0
	st.RLock()
	defer st.RUnlock()
	for _, word := range e.limitKeys {
		postings := st.KeyPostingsLocked(word)
		for i := len(postings) - 1; i >= 0 && added < maxLimitCandidates; i-- {
			en, ok := st.EntryLocked(postings[i])
			if !ok || have[en.V.ID] || !admit(en) {
				continue
			}
			v := en.V
			if v.Kind != memory.KindSemantic || v.Status != memory.StatusActive || v.Subject != DefaultSpeaker {
				continue
			}
			have[v.ID] = true
			cands = append(cands, &scored{en: en, fused: best, terms: make(memory.Terms, 0, maxTerms), via: "the user's limits, for a task or a question after them"})
			added++
		}
	}
	return cands
}

// maxLimitCandidates bounds the limits addUserLimits adds: a user states a
// handful; past that the newest.
const maxLimitCandidates = 20

// userTerm is the user's subject term, under which mnemon files what the
// user says about themselves.
func (e *Engine) userTerm() string {
	if ts := e.analyzer.QueryTerms(DefaultSpeaker); len(ts) > 0 {
		return ts[0]
	}
	return ""
}

// namedSubjects returns the subjects of candidates the query names, a
// fact's subject or an episode's speaker ("the user" in "who employs the
// user?"): then the query says whom it is about.
func namedSubjects(cands []*scored, qterms []string) []string {
	var named []string
	seen := ""
	for _, c := range cands {
		t := c.en.SubjectTerm
		if t == "" || t == seen {
			continue
		}
		if slices.Contains(qterms, t) && !slices.Contains(named, t) {
			named = append(named, t)
		}
		seen = t
	}
	return named
}

// otherSubject reports whether v is a fact about someone a query that
// names a subject does not name. An episode's subject is who said it, not
// whom it is about ("Imogen: how is the research going, Rosalind?"), so
// episodes are never about someone else.
func otherSubject(en *entry, qterms []string, namesSubject bool, team string) bool {
	return namesSubject && en.V.Kind != memory.KindEpisodic && en.SubjectTerm != "" &&
		!slices.Contains(qterms, en.SubjectTerm) && (team == "" || en.SubjectTerm != team)
}

// opensOnAskedName reports whether text opens on a name the question
// says: "Anton dropped out, he's doing a bootcamp now" is Anton's change,
// and answers "what is Anton doing now?".
func opensOnAskedName(text string, names []string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	first = strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(first, ",.!?:;"), "'s"), "’s")
	return first != "" && slices.Contains(names, strings.ToLower(first))
}

// asksEarlier reports a question about an earlier value, history served
// or not ("what editor did I use before?"): what changed last is not its
// answer, and the value a change replaced may be. "anymore" is a past word
// that asks about now ("do I still drink coffee anymore?").
func (q queryFacts) asksEarlier() bool {
	return q.past || q.aboutPast && !q.current
}

// changeRelevant reports whether c may take the change lift: a channel
// that measures relevance found it, with a fused score of at least
// changeRelevance of the best candidate's. A change cue says what is true
// now of what the question asks; a turn the question barely touches
// ("scratch that, node 22 since last week" for "which package manager
// should I use?", a cosine of 0.22) says it of something else.
func (q queryFacts) changeRelevant(c *scored) bool {
	return c.relevant() && c.fused >= changeRelevance*q.bestFused
}

// changeRelevance is the share of the best fused score a candidate needs
// for the change lift: a gate against the irrelevant only (the note above
// fused 0.008 against the best 0.917). 0.1 also cost the synthetic suite's
// episodes-only arm (held-out recall@5 0.742 → 0.720); 0.02 costs nothing
// measured.
var changeRelevance = 0.02

// eventAttitudeContender is the share of the best fused score from which
// a taste or wish contends for the top of a question about a happening,
// and takes the event_attitude mark (Ranking.EventAttitude).
var eventAttitudeContender = 0.5

// relevant reports whether a channel that measures relevance to the query
// found c, not only the recent or critical channel.
func (c *scored) relevant() bool {
	for _, h := range c.channels {
		switch h.Channel {
		case ChannelLexical, ChannelSemantic, ChannelStructured, ChannelGraph:
			return true
		}
	}
	return false
}

// clearlyRelevant is relevant without a weak semantic hit alone: below
// weakSemantic the built-in embedder's cosine is what unrelated short texts
// share ("where do I put the api key?" and "decided on sqlc instead of
// gorm" meet at 0.22). Enough for a change's own lift (paraphrased updates
// live there), not for following a turn to the one that changed it after.
func (c *scored) clearlyRelevant() bool {
	for _, h := range c.channels {
		switch h.Channel {
		case ChannelLexical, ChannelStructured, ChannelGraph:
			return true
		case ChannelSemantic:
			if h.Score >= weakSemantic {
				return true
			}
		}
	}
	return false
}

// namesPossessionItself reports whether v is the name of the user's
// possession (key name_of:<possession>), or a turn that gave that name.
func namesPossessionItself(st *nsState, v *memory.Version, possession string) bool {
	key := "name_of:" + possession
	if v.Kind == memory.KindSemantic {
		return v.Key == key
	}
	if v.Kind != memory.KindEpisodic || len(v.EvidenceEpisodeIDs) == 0 {
		return false
	}
	st.RLock()
	defer st.RUnlock()
	for _, id := range st.FactsOfEpisodeLocked(v.EvidenceEpisodeIDs[0]) {
		if en, ok := st.EntryLocked(id); ok && en.V.Key == key {
			return true
		}
	}
	return false
}

// weakSemantic is the cosine under which a semantic hit alone does not make
// a candidate clearly relevant (clearlyRelevant).
var weakSemantic = 0.3

// rank adds the bounded utility terms, each reported, and the trust action.
func (e *Engine) rank(st *nsState, c *scored, p RetrieveParams, q queryFacts, r Ranking, now time.Time) {
	v := c.en.V
	add := func(name string, value float64) {
		c.terms = append(c.terms, memory.Term{Name: name, Value: value})
	}
	c.terms = c.terms[:0]
	add("usefulness", v.Usefulness*r.Usefulness)
	add("confidence", v.Confidence*r.Confidence)
	scope := 0.0
	if v.Scope.AgentID != "" {
		scope += r.ScopeAgent
	}
	if v.Scope.UserID != "" {
		scope += r.ScopeUser
	}
	if v.Scope.ProjectID != "" {
		scope += r.ScopeProject
	}
	if scope != 0 {
		add("scope", scope)
	}
	if v.Scope.SessionID != "" && v.Scope.SessionID == p.Scope.SessionID {
		// Said in the conversation the request is part of: a little
		// higher, never a wall (other sessions' items stay visible).
		add("session", r.ScopeSession)
	}
	qterms := q.terms
	if v.Kind == memory.KindEpisodic {
		sh := c.en.Shape
		if q.task && sh&shapeRequest != 0 && standingInstruction(v.Content, sh) {
			// "when you draft stuff for me, never use my full name":
			// an order for every task of its kind, not a request.
			sh &^= shapeRequest
		}
		if sh&shapeRequest != 0 {
			// A request states nothing. For a new task an earlier
			// request ("can you book the Lisbon trip?") weighs as much
			// against it as a rule weighs for one: the user's rules, not
			// their old asks, are what a task must respect.
			pen := r.QuestionPenalty
			if q.task && r.TaskRule > pen {
				pen = r.TaskRule
			}
			if pen != 0 {
				add("question", -pen)
			}
		}
		if r.ChatterPenalty != 0 && sh&shapeChatter != 0 {
			add("chatter", -r.ChatterPenalty)
		}
		if r.OtherTurn != 0 && (q.relation != "" && someoneElsesRelation(v.Content, q.relation) ||
			q.relation == "" && q.possession != "" && someoneElsesRelation(v.Content, q.possession)) {
			// "what's my sister's name?" is not answered by "Petra's
			// sister Vesna is staying with her", nor "who is my dentist?" by
			// "Mira's dentist is Dr Osei".
			add("other_subject", -r.OtherTurn)
		}
		if r.OtherTurn != 0 && q.relation != "" && ownOtherRelationOnly(v.Content, q.relation) {
			// "what's my kid's name?" is not answered by "my manager is
			// Felix": the user's manager, not their kid, whatever key
			// word ("name") the turn lent from its fact.
			add("other_subject", -r.OtherTurn)
		}
		if r.OtherTurn != 0 && !q.self && q.relation == "" && q.possession != "" && !relationWord(q.possession) && sh&(shapeSelf|shapeOther) == shapeOther {
			// "who is my favourite author?" asks for the user's
			// author, not the sister's: "my sister reads nothing but
			// Murakami".
			add("other_subject", -r.OtherTurn)
		}
		if r.OtherTurn != 0 && q.self && sh&shapeSelf == 0 {
			// "what medication am I allergic to?" is not answered by
			// "my flatmate is allergic to penicillin".
			if sh&(shapeOther|shapeOtherName|shapeOpensName) != 0 || c.aboutOther {
				add("other_subject", -r.OtherTurn)
			}
		} else if r.OtherTurn != 0 && q.self && sh&shapeOpensOther != 0 && answeredAboutOther(v.Content, qterms, e.analyzer) {
			// "which company do I work for?" is not answered by "my
			// flatmate works at Quillon, I'm so jealous": the words
			// that matched are the flatmate's.
			add("other_subject", -r.OtherTurn)
		}
		if r.NoPerson != 0 && q.relation != "" && sh&shapeNoPerson != 0 {
			// "which school does my son go to?" is not answered by "the
			// Larchmont Gallery reopens in may": a turn that speaks of no
			// one says nothing of the user's son.
			add("no_person", -r.NoPerson)
		}
		if r.AgentRemark != 0 && isAgentSpeaker(v.Subject) && agentRemark(c.en, q) {
			add("agent_remark", -r.AgentRemark)
		}
		if r.ChangeCue != 0 && !q.asksEarlier() && !q.task && (q.self || q.current) && sh&shapeChange != 0 && sh&shapeRequest == 0 &&
			(sh&shapeOpensName == 0 || opensOnAskedName(v.Content, q.names)) &&
			(!q.rule || sh&shapeConstraint != 0) && q.changeRelevant(c) {
			// What changed last is what is true now: "everything runs
			// on Fly.io now" over "the app's on Heroku". A task ("order
			// me dinner") asks for no value, so no change answers it;
			// a question after the user's rules ("anything I should
			// avoid for lunch?") is answered by a rule, so only a limit
			// that changed ("I don't fly anymore", "vegan now") takes the
			// lift, not a new coffee order that shares a little of its
			// meaning, even said with a rule word ("only matcha now").
			add("change", r.ChangeCue)
		}
		if r.TaskRule != 0 && (q.task && sh&shapeRule != 0 || q.userRule() && sh&shapeConstraint != 0) && sh&shapeRequest == 0 && !isAgentSpeaker(v.Subject) &&
			!q.limitOutOfPlace("", v.Content) {
			// "book me a flight" must respect "never flying with them
			// again", though it shares no word with it. The user's rule,
			// not the agent's advice ("you should always book early").
			// "what should I avoid ordering?" asks for the limits among
			// them ("allergic to walnuts"), not a taste said with a rule
			// word ("only matcha now").
			add("task_rule", r.TaskRule)
			if d := q.domains & memoryDomains(v.Content, ""); r.TaskDomain != 0 && q.task && d != 0 && !someoneElsesTurn(v.Content, sh) {
				add("task_domain:"+d.String(), r.TaskDomain)
			}
		}
		if r.AnswerType != 0 && q.number && sh&shapeNumber != 0 {
			add("answer_type", r.AnswerType)
		}
	}
	if r.OtherTurn != 0 && q.possessed != "" && q.possession != "" && namesPossessionItself(st, v, q.possession) {
		// "what's my cat's vet called?" asks for the vet's name: the
		// cat's own name (its fact, or the turn that gave it) answers
		// another question.
		add("other_subject", -r.OtherTurn)
	}
	if r.ChangeCue != 0 && !q.asksEarlier() && !q.task && (q.self || q.current) && isNote(v) && q.changeRelevant(c) {
		// A note is a statement no rule read ("changed the wifi pw to
		// …", kept so by remember): its change cue lifts it as a turn's
		// does.
		if sh := shapeOfText(v.Content, e.analyzer); sh&shapeChange != 0 && sh&(shapeRequest|shapeOpensName) == 0 &&
			(!q.rule || sh&shapeConstraint != 0) {
			add("change", r.ChangeCue)
		}
	}
	if r.EventAttitude != 0 && q.event && !q.aboutPast && v.Kind == memory.KindSemantic && (v.Type == memory.TypePreference || v.Type == memory.TypeGoal) &&
		c.fused >= eventAttitudeContender*q.bestFused {
		// "when did Ida sell the boat?" is told by the turn about the
		// sale, not by "Ida likes boats.". A share of the fact's own
		// score, and only for a contender for the top: a weak fact keeps
		// its place among the weak, where it fills what is left of a
		// budget as before. A question about an earlier value ("what
		// did Ida drink before she switched?") asks for the taste that
		// held then, and is left alone.
		add("event_attitude", -r.EventAttitude*c.fused)
	}
	if c.namesAsked && !asksWhatCalled(p.Query) {
		// The turn that named the asked person by relation and name
		// speaks of them ("my sister Oona got hired as a paramedic"),
		// above a turn that only shares a word with the question.
		add("subject", namedTurnLift)
	}
	if r.OtherTurn != 0 && v.Kind == memory.KindSemantic && v.Subject != DefaultSpeaker && relationNameKey(v.Key) && !asksWhatCalled(p.Query) {
		// "my sister Oona ..." keeps the sister's name as a fact: it
		// links the two for a question about a name ("what's my
		// sister called?"), but answers nothing else asked of her
		// ("where is Oona working?") and stays below what does.
		add("answer_type", -relationNameDrop)
	}
	if r.TaskRule != 0 && (q.task || q.userRule()) && v.Kind == memory.KindSemantic && v.Status == memory.StatusActive &&
		(v.Type == memory.TypeConstraint || v.Type == memory.TypeFact && shapeOfText(v.Content, e.analyzer)&shapeConstraint != 0) &&
		!q.limitOutOfPlace(v.Key, v.Content) {
		// A stated rule as a fact ("no cilantro for me, ever") binds a
		// task as the turn that said it does; a task and a question
		// after the user's rules are answered by it, and by a fact that
		// is one ("The user is allergic to peanuts.", "The user is
		// vegetarian.").
		add("task_rule", r.TaskRule)
		if d := q.domains & memoryDomains(v.Content, v.Key); r.TaskDomain != 0 && q.task && d != 0 && v.Subject == DefaultSpeaker {
			add("task_domain:"+d.String(), r.TaskDomain)
		}
	} else if r.TaskDomain != 0 && q.task && q.domains != 0 && v.Kind == memory.KindSemantic && v.Status == memory.StatusActive &&
		v.Type == memory.TypePreference && v.Subject == DefaultSpeaker {
		// "book me a flight" and "The user prefers window seats.": a
		// taste of the task's own domain binds it as a rule does.
		if d := q.domains & memoryDomains(v.Content, v.Key); d != 0 {
			add("task_domain:"+d.String(), r.TaskRule+r.TaskDomain)
		}
	}
	if c.en.SubjectTerm != "" && slices.Contains(qterms, c.en.SubjectTerm) {
		// "which editor does the user prefer?" is about the user, not
		// about the user's sister.
		add("subject", r.SubjectMatch)
	}
	other := otherSubject(c.en, qterms, q.namesSubject, q.team)
	if other && index.IsNoteKey(v.Key) && len(st.ExplainLexical(v.ID, q.subjects)) > 0 {
		// A note is a statement no rule parsed, kept under its speaker:
		// "the contractor in Mumbai reviews auditing changes" is about
		// the contractor when its own words say so, whoever said it.
		other = false
	}
	if other {
		// "who employs the user?" is not answered by "The user's wife
		// works at Hooli". A penalty, not a larger subject bonus: the
		// bonus would lift every fact of the named subject over the
		// episodes (raising it from 0.03 to 0.20 cost LoCoMo context 1
		// recall_all@10 0.596 -> 0.563).
		pen := r.OtherSubject
		if q.self {
			// A question in the first person is about the user: a fact
			// about someone else is never its answer, however well its
			// words match ("The user's flatmate is allergic to
			// penicillin" for "what am I allergic to?").
			pen += r.OtherTurn
		}
		if q.relation != "" && extract.IsRelationNoun(v.Subject) && !sameRelation(v.Subject, q.relation) {
			// Another of the user's people than the one asked about:
			// "The user's manager's name is Felix" names no kid, however
			// well "name" matched "what's my kid's name?".
			pen += r.OtherTurn
		}
		add("other_subject", -pen)
	} else if q.relation != "" && v.Kind != memory.KindEpisodic && v.Subject == DefaultSpeaker && !index.IsNoteKey(v.Key) {
		// A question about one of the user's people is not about the
		// user: "The user likes mountains." is no answer to "what does
		// my kid like?", whose "my" names the user as well.
		add("other_subject", -(r.OtherSubject + r.OtherTurn))
	}
	if p.TaskType != "" && (string(v.Type) == p.TaskType || strings.Contains(v.Key, p.TaskType)) {
		add("task_match", r.TaskMatch)
	}
	if v.Status == memory.StatusContested {
		add("contested", -r.ContestedPenalty)
	}
	if viewOf(p).history(v) {
		if q.past && !other {
			// "which editor did the user use before?" asks for history,
			// not for the sister's old editor; and for the value the
			// current one replaced before any older one.
			add("history", r.HistoryPenalty)
			if c.previous && r.PreviousValue != 0 {
				add("previous", r.PreviousValue)
			}
		} else {
			add("history", -r.HistoryPenalty)
		}
	}
	switch c.source {
	case "covered":
		add("covered_by_fact", -r.CoveredPenalty)
	case "stale":
		add("stale_source", -r.StalePenalty)
	}
	c.final = c.fused + c.terms.Sum()
	c.trust = trustAt(v, now)
	c.action = r.action(c.trust)
}

// semanticScore places a cosine on its own scale: 0 at the floor below
// which the channel calls hits noise, 1 for an identical vector. A hit at
// cosine 0.44 with the floor at 0.20 counts 0.3 of a full channel weight,
// whatever the other hits scored.
func semanticScore(cos, floor float64) float64 {
	if floor >= 1 || cos <= floor {
		return 0
	}
	return min(1, (cos-floor)/(1-floor))
}

// scoreFused reports whether a channel's hits are fused by their score
// relative to its best hit rather than by their rank (see fuse).
func scoreFused(channel string) bool {
	switch channel {
	case ChannelLexical, ChannelSemantic, ChannelStructured:
		return true
	}
	return false
}

// endedAtLocked is the record time at which history version v stopped
// being current: when the version that superseded it was recorded, else
// (expired, or its successor pruned) its last state change, which a later
// touch of the old version (restated as history, feedback) can move. The
// caller holds st.RLock.
func endedAtLocked(st *nsState, v *memory.Version) time.Time {
	if v.SupersededBy != "" {
		if en, ok := st.EntryLocked(v.SupersededBy); ok {
			return en.V.RecordedAt
		}
	}
	return v.UpdatedAt
}

// keywordQuery reports whether query is a few keywords rather than a
// sentence: two to six words, no question mark, and every word a query
// term (the analyzer dropped none as a stop word, and none is repeated).
// In "friday standup notes" each word is a requirement; in "where is the
// app hosted?" the words are evidence, and a memory holding one of them
// may well be the answer.
func keywordQuery(query string, qterms []string) bool {
	if len(qterms) < 2 || len(qterms) > 6 || strings.ContainsRune(query, '?') {
		return false
	}
	words := 0
	inWord := false
	for _, r := range query {
		letter := unicode.IsLetter(r) || unicode.IsDigit(r)
		if letter && !inWord {
			words++
		}
		inWord = letter
	}
	return words == len(qterms)
}

// relationNameDrop is what a relation's name fact loses for a question
// that asks no name.
const relationNameDrop = 0.5

// relationNameKey reports the key of a name ("name", "name:theo").
func relationNameKey(key string) bool { return index.IsNameKey(key) }

// asksWhatCalled reports a question about what someone is called.
func asksWhatCalled(query string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		switch w {
		case "name", "names", "named", "called", "call", "who", "who's", "whom", "whose":
			return true
		}
	}
	return false
}

// namedTurnLift is what a turn that named the asked person by relation
// and name gains (namesAsked).
const namedTurnLift = 0.15

// namedTurnsLocked returns the episodes that named the person q asks
// about by relation and name: the evidence of the live relation-name facts
// ("my sister Oona ...") of q's relation (or one of its family) or with
// one of q's names. nil when q asks about no person or none was named so.
// The caller holds st.RLock.
func (e *Engine) namedTurnsLocked(st *nsState, q queryFacts) map[string]bool {
	if q.relation == "" && len(q.names) == 0 {
		return nil
	}
	var out map[string]bool
	for _, t := range e.nameKeyTerms {
		for _, id := range st.KeyPostingsLocked(t) {
			en, ok := st.EntryLocked(id)
			if !ok || !relationNameKey(en.V.Key) || en.V.Subject == DefaultSpeaker || !en.Status.Live() || len(en.V.EvidenceEpisodeIDs) == 0 {
				continue
			}
			if q.relation != "" && sameRelation(en.V.Subject, q.relation) || slices.Contains(q.names, strings.ToLower(en.V.Value)) {
				if out == nil {
					out = make(map[string]bool)
				}
				for _, ep := range en.V.EvidenceEpisodeIDs {
					out[ep] = true
				}
			}
		}
	}
	return out
}
