// Package index owns mnemon's derived search state, one Namespace per
// namespace: the lexical and vector index, the metadata ranking reads of
// every version (key and subject terms, turn shape, evidence links, episode
// order), the knowledge graph's claims and the near-duplicate wording
// signatures. It is built from the store on first use, kept current by the
// engine's own writes (Put, UpdateState, Drop) and by other processes'
// writes read from the change log (Set.Sync), and can be rebuilt or evicted
// at any time: the store stays the truth.
package index

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Namespace is one namespace's derived search state: the lexical and vector
// index plus the metadata the read path ranks and packs with, so a
// retrieval never reads the store on its hot path.
type Namespace struct {
	name string

	// writeMu serialises reconciliation in the namespace: a slot is read
	// and written by one writer at a time.
	writeMu sync.Mutex

	loadMu sync.Mutex
	loaded bool
	bulk   bool // while loading: sort episodes once at the end

	cfg *Config // the Set's: how versions are read and analysed

	mu         sync.RWMutex
	ix         *search.Index
	entries    entryMap            // version id → entry
	structured map[string][]string // key or subject term → version ids
	critical   map[string]struct{} // version ids with criticality must_include
	episodes   []string            // episodic version ids by observed_at ascending
	derived    map[string][]string // episode id → ids of fact versions citing it
	sigs       map[string][]string // wording signature → fact version ids; nil until first needed
	graph      *graph              // entities and claims of the fact versions (graph.go)

	// changeSeq is the store's change log position the index reflects
	// (see follow.go); guarded by writeMu once loaded.
	changeSeq int64
	// currentAt is when (unix nanoseconds) the index was last known to
	// hold every committed change: the start of the last load or sync
	// that read the log to its end (see follow.go, Set.Lag).
	currentAt atomic.Int64
	// usedAt is when (unix nanoseconds) the namespace was last asked for:
	// the memory cap evicts the least recently used first (memcap.go).
	usedAt atomic.Int64
	// perVersion is the estimated bytes one version costs the index,
	// measured when it was loaded (memcap.go).
	perVersion atomic.Int64
}

// Entry is what the read path knows of one indexed version. Entries are
// immutable once published: a state change publishes a new entry, so readers
// may keep using an entry after releasing the lock.
type Entry struct {
	V        *memory.Version // without embedding
	KeyTerms []string        // analysed key terms (for the structured channel)
	// AliasTerms are other words for the fact's slot ("beverage" for
	// prefers:drink, "employer" for works_at): the structured channel
	// finds the fact by them as by its key, without counting them in the
	// key's length, so a paraphrased question scores as the key's own
	// words do.
	AliasTerms []string

	// Copies of what the retrieval filter reads for every candidate, kept
	// here so the filter does not chase v into another cache line.
	Status    memory.Status
	Ownerless bool // no agent, user or project owns v: visible to every request
	// Episodic and Projectable are v's kind and Projectable(v), which
	// fusion asks of every candidate (which channels could have found it).
	Episodic, Projectable bool

	SubjectTerm string // the subject as an index term ("user", "sister", "rosalind")
	// Shape is what Config.Shape said of the version when it was indexed
	// (the engine's turn shape: what ranking knows of an episode's wording).
	Shape uint16
	// Solid is SolidLen(V.Content), which ranking compares for every
	// candidate to find a fact that repeats a turn: kept here, it costs
	// no read of the content (a cache miss) and no pass over it.
	Solid int32
	// NameKey says V.Key names someone ("name", "name:theo": IsNameKey),
	// which ranking asks of every fact of every episode it ranks (whether
	// the fact says more than a name): kept here, the fact's version is
	// not read for it.
	NameKey bool
	// Toks is a cache the read path keeps on the entry (token counts of
	// its rendered lines, filled by packing); the index never reads it.
	Toks Toks
	// episodeAt is an episode's last known place in st.episodes, plus
	// one (see episodeIndexLocked).
	episodeAt atomic.Int32
}

func newEntry(v *memory.Version, keyTerms []string, subjectTerm string) *Entry {
	lean := *v
	lean.Embedding = nil
	return &Entry{V: &lean, KeyTerms: keyTerms, Status: v.Status, Ownerless: !v.Scope.Owned(), SubjectTerm: subjectTerm,
		Episodic: v.Kind == memory.KindEpisodic, Projectable: Projectable(v), Solid: solidOf(v.Content),
		NameKey: IsNameKey(v.Key)}
}

// IsNameKey reports the key of a name ("name", "name:theo").
func IsNameKey(key string) bool {
	return key == "name" || strings.HasPrefix(key, "name:")
}

// SolidLen counts the bytes of s that are not ASCII spacing.
func SolidLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			n++
		}
	}
	return n
}

// solidOf is SolidLen as an Entry keeps it.
func solidOf(s string) int32 { return int32(min(SolidLen(s), math.MaxInt32)) }

// subjectTermOf returns the subject's first index term.
func subjectTermOf(v *memory.Version, an *search.Analyzer) string {
	if ts := an.QueryTerms(v.Subject); len(ts) > 0 {
		return ts[0]
	}
	return ""
}

func newNSState(name string) *Namespace {
	return &Namespace{
		name:       name,
		ix:         search.NewIndex(),
		structured: make(map[string][]string),
		critical:   make(map[string]struct{}),
		derived:    make(map[string][]string),
		graph:      newGraph(),
	}
}

// Toks holds token counts, each plus one (zero: not counted yet), for the
// read path to fill; see engine/linetoks.go.
type Toks struct {
	Line          atomic.Int32
	NearSameDay   atomic.Int32
	NearOtherDate atomic.Int32
}

// load builds the index from the store unless it is built; it says
// whether it built it.
func (st *Namespace) load(ctx context.Context) (bool, error) {
	cfg := st.cfg
	st.loadMu.Lock()
	defer st.loadMu.Unlock()
	if st.loaded {
		return false, nil
	}
	st.setBulk(true)
	defer st.setBulk(false)
	// Read before the versions: a write committed during the load is then
	// applied again by the follower, never missed.
	start := time.Now()
	seq, err := cfg.Store.LastChange(ctx, memory.ScanParams{Namespace: st.name})
	if err != nil {
		return false, fmt.Errorf("load index of namespace %q: %w", st.name, err)
	}
	st.changeSeq = seq
	// An embedder whose vectors end in dense dimensions (word vectors)
	// has them kept row-wise: as posting lists they would hold every
	// document.
	if t, ok := cfg.Embedder.(interface{ DenseTail() int }); ok {
		st.ix.SetDenseTail(cfg.Embedder.Dim(), t.DenseTail())
	}
	built, err := st.loadAll(ctx)
	if err != nil {
		// Start over next time rather than serve a partial index.
		st.reset()
		return false, fmt.Errorf("load index of namespace %q: %w", st.name, err)
	}
	st.SortEpisodes()
	st.buildGraph(cfg.Analyzer)
	built()
	st.currentAt.Store(start.UnixNano())
	st.loaded = true
	return true, nil
}

// loadedVersion is one version analysed for the index.
type loadedVersion struct {
	v           *memory.Version
	doc         search.Doc
	keyTerms    []string
	aliasTerms  []string
	subjectTerm string
	shape       uint16
}

// loadBatchSize is how many versions travel together from the store's
// reader to the analysing goroutines and back: one channel send and one
// slice per batch rather than per version.
const loadBatchSize = 256

// loadBatch is a run of versions in the store's order; at is its place
// among the batches of one load.
type loadBatch struct {
	at  int
	vs  []*memory.Version
	out []loadedVersion
}

// versionSource returns how the index reads a namespace's versions: in one
// pass of the store's stream when it offers one (memory.VersionStreamer:
// only the versions an index holds, decoded for the purpose), else by its
// scan.
func versionSource(s Store) func(context.Context, memory.ScanParams, func(*memory.Version) error) error {
	if vs, ok := s.(memory.VersionStreamer); ok {
		return vs.StreamVersions
	}
	return s.ScanVersions
}

// loadAll streams the namespace's versions from the store and analyses
// them on every core (tokenising, stemming and decoding vectors is most of
// an open's work), then records each in the metadata maps in the store's
// scan order. Meanwhile the search index is built from the documents, in
// that order, in one bulk build (much faster than upserting one by one) on
// a goroutine of its own: the call it returns waits for it. The order
// matters: ties between equal scores and the structured channel's
// newest-postings walk follow it, so a namespace loaded in parallel must
// rank exactly as one loaded in sequence, on every open.
//
// Versions travel in batches that keep their place (loadBatch.at), so the
// results are put back in order by position, not sorted; once every batch
// is in, the count is known and the entries, maps and documents are sized
// once for it.
func (st *Namespace) loadAll(ctx context.Context) (built func(), err error) {
	cfg := st.cfg
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	in := make(chan *loadBatch, 2*workers)
	out := make(chan *loadBatch, 2*workers)
	errs := make(chan error, 1+workers)
	read := versionSource(cfg.Store)
	go func() {
		defer close(in)
		b := &loadBatch{vs: make([]*memory.Version, 0, loadBatchSize)}
		send := func() error {
			select {
			case in <- b:
				b = &loadBatch{at: b.at + 1, vs: make([]*memory.Version, 0, loadBatchSize)}
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := read(ctx, memory.ScanParams{Namespace: st.name}, func(v *memory.Version) error {
			if !Indexable(v) {
				return nil
			}
			b.vs = append(b.vs, v)
			if len(b.vs) == loadBatchSize {
				return send()
			}
			return nil
		})
		if err == nil && len(b.vs) > 0 {
			err = send()
		}
		if err != nil {
			errs <- err
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			subjects := make(map[string]string) // subjects repeat: analyse each once
			for b := range in {
				b.out = make([]loadedVersion, len(b.vs))
				for i, v := range b.vs {
					doc, err := docOf(cfg.Analyzer, v)
					if err != nil {
						errs <- err
						cancel()
						return
					}
					doc.Marked = common(v)
					subject, ok := subjects[v.Subject]
					if !ok {
						subject = subjectTermOf(v, cfg.Analyzer)
						subjects[v.Subject] = subject
					}
					b.out[i] = loadedVersion{v: v, doc: doc, keyTerms: keyTermsOf(v, cfg.Analyzer), aliasTerms: aliasTermsOf(v, cfg.Analyzer), subjectTerm: subject,
						shape: cfg.shapeOf(v)} // as putMeta does: ranking reads it
				}
				b.vs = nil
				select {
				case out <- b:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	var batches []*loadBatch
	n := 0
	for b := range out {
		if b.at >= len(batches) {
			batches = slices.Grow(batches, b.at+1-len(batches))[:b.at+1]
		}
		batches[b.at] = b
		n += len(b.out)
	}
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, b := range batches {
		if b == nil { // cannot happen without an error reported above
			return nil, fmt.Errorf("load index of namespace %q: a batch of versions went missing", st.name)
		}
	}
	docs := make([]search.Doc, 0, n)
	for _, b := range batches {
		for i := range b.out {
			docs = append(docs, b.out[i].doc)
		}
	}
	// The search index and the metadata below are apart (their own locks,
	// nothing shared): built side by side.
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.ix.Build(docs)
	}()
	// One block of entries, one allocation: entries are immutable once
	// published and a state change publishes a new one, so the block
	// lives as long as its longest-lived entry.
	block := make([]Entry, n)
	var textBytes int64
	episodes, cited := 0, 0
	for _, b := range batches {
		for i := range b.out {
			if v := b.out[i].v; v.Kind == memory.KindEpisodic {
				episodes++
			} else {
				cited += len(v.EvidenceEpisodeIDs)
			}
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.presizeLocked(n, episodes, cited)
	k := 0
	for _, b := range batches {
		for i := range b.out {
			lv := &b.out[i]
			textBytes += versionBytes(lv.v)
			// The store allocated v for us alone: the entry may keep it.
			lv.v.Embedding = nil
			en := &block[k]
			k++
			en.V, en.KeyTerms, en.AliasTerms, en.Status = lv.v, lv.keyTerms, lv.aliasTerms, lv.v.Status
			en.Ownerless, en.SubjectTerm, en.Shape = !lv.v.Scope.Owned(), lv.subjectTerm, lv.shape
			en.Episodic, en.Projectable = lv.v.Kind == memory.KindEpisodic, Projectable(lv.v)
			en.Solid, en.NameKey = solidOf(lv.v.Content), IsNameKey(lv.v.Key)
			st.putEntryLocked(en, nil)
		}
		b.out = nil
	}
	if n > 0 {
		st.perVersion.Store(versionOverhead + textBytes/int64(n))
	}
	return func() { <-done }, nil
}

// presizeLocked makes room in an empty namespace for n versions, of which
// episodes are episodes, and facts citing at most cited episodes.
func (st *Namespace) presizeLocked(n, episodes, cited int) {
	if st.entries.len() == 0 {
		st.entries.m = make(map[string]*Entry, n)
	}
	if len(st.episodes) == 0 {
		st.episodes = make([]string, 0, episodes)
	}
	if len(st.derived) == 0 {
		st.derived = make(map[string][]string, cited)
	}
}

func (st *Namespace) setBulk(on bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.bulk = on
}

func (st *Namespace) reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ix = search.NewIndex()
	st.entries.clear()
	st.structured = make(map[string][]string)
	st.critical = make(map[string]struct{})
	st.derived = make(map[string][]string)
	st.sigs = nil
	st.episodes = nil
	st.graph = newGraph()
}

// Indexable reports whether a version belongs in the search index at all:
// deleted and quarantined versions are never served, not even as history.
func Indexable(v *memory.Version) bool {
	return v.Status != memory.StatusDeleted && v.Status != memory.StatusQuarantined
}

// docOf builds the search document of a version from its stored fields.
func docOf(an *search.Analyzer, v *memory.Version) (search.Doc, error) {
	doc := search.Doc{ID: v.ID}
	if !Indexable(v) {
		return doc, nil
	}
	doc.Terms = an.Terms(searchText(v))
	if len(v.Embedding) > 0 {
		vec, err := search.DecodeVector(v.Embedding)
		if err != nil {
			return doc, fmt.Errorf("version %s: %w: embedding: %v", v.ID, memory.ErrCorrupt, err)
		}
		// Rescaled here, in place, rather than copied by the index under
		// its write lock: the vector was decoded for this document alone.
		if search.Canonicalize(&vec) {
			doc.Vector = vec
		}
	}
	return doc, nil
}

// searchText is what the lexical channel indexes for a version: its content,
// its subject and key words, and any text lent to it. An episode's speaker
// is not indexed (unless its content names it): every question about the
// user says "the user", and with the label indexed every "ok cool" of the
// user matched it, filling the top of a retrieval with small talk.
func searchText(v *memory.Version) string {
	var b strings.Builder
	b.WriteString(v.Content)
	extra := v.SearchText
	if v.Kind != memory.KindEpisodic {
		b.WriteByte(' ')
		b.WriteString(KeyWords(v.Key))
	} else {
		extra = withoutSpeaker(extra, v.Subject)
	}
	if extra != "" {
		b.WriteByte(' ')
		b.WriteString(extra)
	}
	return b.String()
}

// withoutSpeaker drops the speaker label older databases stored at the head
// of an episode's search text ("user prefers editor" → "prefers editor").
func withoutSpeaker(text, speaker string) string {
	if speaker == "" || len(text) < len(speaker) || !strings.EqualFold(text[:len(speaker)], speaker) {
		return text
	}
	if rest := text[len(speaker):]; rest == "" || rest[0] == ' ' {
		return strings.TrimSpace(rest)
	}
	return text
}

// KeyWords turns "prefers:programming_language" into "prefers programming language".
func KeyWords(key string) string {
	return keySeparators.Replace(key)
}

// keySeparators splits keys into words; read-only, safe for concurrent use.
var keySeparators = strings.NewReplacer(":", " ", "_", " ", "-", " ")

// Put adds or replaces a version in the index, with doc its search
// document (Set.Doc). Call it with the writer lock held (Set.Lock). Lock order: the search
// index is never called with st.mu held, because index queries call back
// into st (the keep filter) while holding the index's own lock.
func (st *Namespace) Put(v *memory.Version, doc search.Doc) {
	if !Indexable(v) {
		st.Drop(v.ID)
		return
	}
	// Marked once its entry is published, not before: a common request
	// never meets a document whose entry it cannot find.
	doc.Marked = false
	st.ix.Upsert(doc)
	st.putMeta(v, st.cfg.Analyzer)
	if common(v) {
		st.ix.SetMarked(v.ID, true)
	}
}

// common reports whether v is served to the common request (live, no
// agent, user or project owns it): the search index's mark of its
// document. A version's document is marked exactly while its entry says
// so (Entry.Ownerless && Entry.Status.Live()); between an entry's change
// and its mark's (writers change both, one after the other, under the
// namespace's writer lock) the mark is the stricter of the two, so a query
// filtering on the mark (search.Filter.Marked) never returns a version its
// entry would refuse, and a write is seen by every query after it returns.
func common(v *memory.Version) bool {
	return v.Status.Live() && !v.Scope.Owned()
}

// putMeta records what the read path knows of a version, besides its
// search document.
func (st *Namespace) putMeta(v *memory.Version, an *search.Analyzer) {
	en := newEntry(v, keyTermsOf(v, an), subjectTermOf(v, an))
	en.AliasTerms = aliasTermsOf(v, an)
	en.Shape = st.cfg.shapeOf(v)
	st.putEntry(en, an)
}

// aliasTermsOf returns the analysed other words for a fact's slot (see
// extract.SlotAliases), minus its key's own terms.
func aliasTermsOf(v *memory.Version, an *search.Analyzer) []string {
	if v.Kind == memory.KindEpisodic {
		return nil
	}
	words := extract.SlotAliases(v.Key)
	if len(words) == 0 {
		return nil
	}
	own := an.QueryTerms(KeyWords(v.Key))
	var out []string
	for _, t := range an.QueryTerms(strings.Join(words, " ")) {
		if !slices.Contains(own, t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// keyTermsOf returns the terms the structured channel matches a version by:
// its key's words, or for an episode the keys lent to it. A note has none
// (see IsNoteKey). An episode's
// speaker is not a key: every question about the user names "the user",
// and with the speaker counted every one of the user's episodes matched it
// as well as a fact whose key the question names, crowding the facts out
// of the channel's top 50. (Naming the speaker still earns an episode with
// lent keys the subject bonus, and the lexical channel indexes it.)
func keyTermsOf(v *memory.Version, an *search.Analyzer) []string {
	if v.Kind != memory.KindEpisodic {
		if IsNoteKey(v.Key) {
			return nil
		}
		return an.QueryTerms(KeyWords(v.Key))
	}
	if v.SearchText == "" {
		return nil
	}
	terms := an.QueryTerms(v.SearchText)
	speaker := an.QueryTerms(v.Subject)
	out := terms[:0]
	for _, t := range terms {
		if !slices.Contains(speaker, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// putEntry publishes an entry and indexes its metadata. With an analyzer
// it also records the fact's wording signature; without (at load) the
// signatures are built on first need (see bySignatures).
func (st *Namespace) putEntry(en *Entry, an *search.Analyzer) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.putEntryLocked(en, an)
}

func (st *Namespace) putEntryLocked(en *Entry, an *search.Analyzer) {
	v := en.V
	old, existed := st.entries.load(v.ID)
	st.entries.store(v.ID, en)
	if !existed || !slices.Equal(old.KeyTerms, en.KeyTerms) {
		for _, t := range en.KeyTerms {
			st.structured[t] = append(st.structured[t], v.ID)
		}
		for _, t := range en.AliasTerms {
			st.structured[t] = append(st.structured[t], v.ID)
		}
	}
	if v.Criticality == memory.CriticalityMustInclude {
		st.critical[v.ID] = struct{}{}
	}
	st.linkEvidenceLocked(v)
	if v.Kind != memory.KindEpisodic && !existed && an != nil && st.sigs != nil {
		sig := Signature(an, v.Content)
		st.sigs[sig] = append(st.sigs[sig], v.ID)
	}
	if v.Kind == memory.KindEpisodic && !existed {
		st.insertEpisodeLocked(v)
	}
	if an != nil { // at load, buildGraph projects every entry at the end
		st.graph.put(v, an)
	}
}

// UpdateState records a version's new lifecycle state. Its search document
// stays: the claim never changes.
func (st *Namespace) UpdateState(v *memory.Version) {
	if !Indexable(v) {
		st.Drop(v.ID)
		return
	}
	marked := common(v)
	if !marked {
		st.ix.SetMarked(v.ID, false) // before the entry says so: see common
	}
	if st.updateEntry(v) && marked {
		st.ix.SetMarked(v.ID, true) // after the entry, outside its lock
	}
}

// updateEntry is UpdateState's change of the entry; false when the
// version has none.
func (st *Namespace) updateEntry(v *memory.Version) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	en, ok := st.entries.load(v.ID)
	if !ok {
		return false
	}
	next := newEntry(v, en.KeyTerms, en.SubjectTerm)
	next.AliasTerms, next.Shape = en.AliasTerms, en.Shape
	st.entries.store(v.ID, next)
	// Evidence only grows, except when a trim drops purged statements
	// (trimEvidence): those no longer speak for the fact.
	for _, ep := range en.V.EvidenceEpisodeIDs {
		if !slices.Contains(v.EvidenceEpisodeIDs, ep) {
			st.unlinkEvidenceLocked(ep, v.ID)
		}
	}
	st.linkEvidenceLocked(v)
	return true
}

// unlinkEvidenceLocked forgets that fact id cites episode ep.
func (st *Namespace) unlinkEvidenceLocked(ep, id string) {
	if ids := slices.DeleteFunc(st.derived[ep], func(d string) bool { return d == id }); len(ids) > 0 {
		st.derived[ep] = ids
	} else {
		delete(st.derived, ep)
	}
}

// linkEvidenceLocked records which episodes a fact version cites, so the
// read path can tell an episode whose facts were all superseded (stale)
// from one a current fact already covers.
func (st *Namespace) linkEvidenceLocked(v *memory.Version) {
	if v.Kind == memory.KindEpisodic {
		return
	}
	for _, ep := range v.EvidenceEpisodeIDs {
		if !slices.Contains(st.derived[ep], v.ID) {
			st.derived[ep] = append(st.derived[ep], v.ID)
		}
	}
}

// BySignatures returns the ids of facts worded with this signature, or
// with it less any one of its terms (a restatement with a word added). The
// signature map is built on first use, so opening a namespace that is only
// read never pays for it.
func (st *Namespace) BySignatures(sig string) []string {
	terms := strings.Split(sig, " ")
	st.PrepareSignatures() // built before any writer needs it; a no-op then
	st.mu.Lock()
	defer st.mu.Unlock()
	out := append([]string(nil), st.sigs[sig]...)
	if len(terms) < 3 || len(terms) > 32 {
		return out
	}
	for i := range terms {
		less := strings.Join(slices.Concat(terms[:i], terms[i+1:]), " ")
		out = append(out, st.sigs[less]...)
	}
	return out
}

// Signature is the sorted set of a text's analysed terms: the same for two
// wordings that differ only in order, inflection, punctuation or stop words.
func Signature(an *search.Analyzer, text string) string {
	terms := an.QueryTerms(text)
	if len(terms) == 0 {
		return ""
	}
	slices.Sort(terms)
	return strings.Join(terms, " ")
}

// Drop removes a version from the index.
func (st *Namespace) Drop(id string) {
	st.ix.SetMarked(id, false) // before the entry goes: see common
	st.mu.Lock()
	en, ok := st.entries.load(id)
	if ok {
		st.entries.delete(id)
		delete(st.critical, id)
		st.graph.remove(id)
		// A fact that goes no longer speaks for its episodes (a reload
		// would not list it either).
		for _, ep := range en.V.EvidenceEpisodeIDs {
			st.unlinkEvidenceLocked(ep, id)
		}
		if en.V.Kind == memory.KindEpisodic {
			for i, p := range st.episodes {
				if p == id {
					st.episodes = append(st.episodes[:i], st.episodes[i+1:]...)
					break
				}
			}
		}
		// Structured postings are cleaned lazily: lookups skip ids that
		// are no longer entries.
	}
	st.mu.Unlock()
	if ok {
		st.ix.Remove(id)
	}
}

// insertEpisodeLocked adds an episodic version to st.episodes in order. A
// new episode is usually the latest and is appended; an older one (a
// backfill, a capture of past events) is inserted at its place by binary
// search: re-sorting the whole list per insert made such writes O(n log n)
// each at 100k episodes. While loading, episodes are appended and sorted
// once at the end.
func (st *Namespace) insertEpisodeLocked(v *memory.Version) {
	n := len(st.episodes)
	if st.bulk || n == 0 || !episodeBefore(v, st.entries.must(st.episodes[n-1]).V) {
		st.episodes = append(st.episodes, v.ID)
		return
	}
	i := sort.Search(n, func(i int) bool { return episodeBefore(v, st.entries.must(st.episodes[i]).V) })
	st.episodes = slices.Insert(st.episodes, i, v.ID)
}

// episodeBefore orders episodes by observed time, then id.
func episodeBefore(a, b *memory.Version) bool {
	if !a.ObservedAt.Equal(b.ObservedAt) {
		return a.ObservedAt.Before(b.ObservedAt)
	}
	return a.ID < b.ID
}

// SortEpisodes puts the episode order right after versions were put in
// bulk (an import).
func (st *Namespace) SortEpisodes() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.sortEpisodesLocked()
}

func (st *Namespace) sortEpisodesLocked() {
	sort.SliceStable(st.episodes, func(i, j int) bool {
		return episodeBefore(st.entries.must(st.episodes[i]).V, st.entries.must(st.episodes[j]).V)
	})
}

// Entry returns the entry of a version id.
func (st *Namespace) Entry(id string) (*Entry, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.entries.load(id)
}

// Size returns the number of indexed versions.
func (st *Namespace) Size() int {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.entries.len()
}

// entryMap maps version ids to entries. It does no locking of its own:
// writers hold st.mu, readers hold st.mu.RLock (a retrieval channel holds it
// for its whole run, so its hundreds of filter lookups are plain map reads).
type entryMap struct {
	m map[string]*Entry
}

func (em *entryMap) load(id string) (*Entry, bool) {
	en, ok := em.m[id]
	return en, ok
}

// must returns an entry known to exist.
func (em *entryMap) must(id string) *Entry { return em.m[id] }

func (em *entryMap) store(id string, en *Entry) {
	if em.m == nil {
		em.m = make(map[string]*Entry)
	}
	em.m[id] = en
}

func (em *entryMap) delete(id string) { delete(em.m, id) }

func (em *entryMap) clear() { em.m = nil }

func (em *entryMap) len() int { return len(em.m) }

// IsNoteKey reports whether key is a note's: the opening words of a
// statement no rule recognised ("note:backend_servic_use_datadog..."), kept
// so restating it reinforces the same note. Such a key names no slot a
// question could ask for; its words are the note's own text, which the
// lexical channel already scores. Matched as a slot, it counted those
// words twice: for "datadog offline" every note opening on "datadog" came
// above the one note holding both words.
func IsNoteKey(key string) bool { return strings.HasPrefix(key, "note:") }
