package index

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// The knowledge graph: entities and claims (subject –relation→ object)
// projected from accepted fact versions. Like the search index it is
// derived, in-process state of a namespace (Namespace.graph), built from the
// store on load and updated with every committed write, so it can never
// disagree with the store: a claim is one version's subject, key and
// value, and it is current exactly while its version is live. When the
// version is superseded or expires the claim leaves the current graph and
// stays as history, valid from the version's valid_from to its valid_to;
// when it is forgotten (deleted) or was quarantined it leaves for good,
// as the version leaves retrieval. Raw episodes never make claims, and
// neither do candidates the admission policy did not accept (they are
// never stored as versions).
//
// The graph keeps only what never changes about a claim (which versions
// name which entities); status and validity are read from the version's
// index entry when the graph is queried, so a lifecycle change that
// reaches the index (updateState) reaches the graph with no work of its
// own.

// Graph limits.
const (
	// maxEntityTerms bounds an object: a value of more analysed words than
	// this is a statement ("Always run tests before merging"), not a
	// name, and makes no claim.
	maxEntityTerms = 6
	// graphFanout bounds the claims the graph channel reads per entity
	// (newest first), and graphScan those it reads per retrieval: a hub
	// ("user", who may hold thousands of facts) costs a retrieval at most
	// this much. A scanned claim costs about 1.4 µs at 100k facts (map
	// lookups that miss the cache; BenchmarkGraphChannel100k): 4,000 took
	// 5 ms, 500 take 0.7 ms. The structured channel already finds a hub's
	// facts by their keys; LoCoMo dev and the synthetic seeds give the same
	// numbers with 1,000 / 4,000.
	graphFanout = 100
	graphScan   = 500
)

// graphEntity is one node: the entities a claim names by subject or value.
type graphEntity struct {
	name   string     // display name: lower-cased, spaces collapsed, as first written
	terms  []string   // analysed terms; the entity's key is their join
	claims []claimRef // the versions whose claims name it, oldest first
}

// claimRef is one claim as an entity lists it: the version's id and the
// claim itself, so the graph channel reads a claim's entities where it
// finds the claim, not by a second lookup of the same id in graph.claims
// (a map lookup that misses the cache, once per claim scanned).
type claimRef struct {
	id    string
	claim graphClaim
}

// graphClaim is the immutable part of one version's claim: which entities
// it joins.
type graphClaim struct {
	subject, object string // entity keys
}

// graph is a namespace's entity graph. It is guarded by Namespace.mu.
type graph struct {
	entities map[string]*graphEntity // entity key → entity
	claims   map[string]graphClaim   // version id → claim
	byTerm   map[string][]string     // an entity's first term → entity keys
}

func newGraph() *graph {
	return &graph{
		entities: make(map[string]*graphEntity),
		claims:   make(map[string]graphClaim),
		byTerm:   make(map[string][]string),
	}
}

// entityKey normalises a name as the analyzer does (lower case, folded
// accents, no stop words, stems), so "Acme", "ACME" and "acme" are one
// entity and a query's terms can be matched against it.
func entityKey(an *search.Analyzer, name string) (string, []string) {
	terms := an.QueryTerms(name)
	return strings.Join(terms, " "), terms
}

// entityName is how an entity is shown: lower-cased, spaces collapsed.
func entityName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Projectable reports whether a version makes a claim: a distilled fact
// (never an episode) with a subject and a value that names something. A
// rule, a procedure, a lesson, a summary or a note holds a sentence as its
// value ("Always run tests before merging"), not an entity.
func Projectable(v *memory.Version) bool {
	switch v.Type {
	case memory.TypeConstraint, memory.TypeProcedure, memory.TypeLesson, memory.TypeSummary:
		return false
	}
	return v.Kind != memory.KindEpisodic && v.Subject != "" && strings.TrimSpace(v.Value) != "" &&
		!IsNoteKey(v.Key)
}

// put projects a version's claim. A version's claim never changes, so
// putting a version again changes nothing. Called with st.mu held.
func (g *graph) put(v *memory.Version, an *search.Analyzer) {
	g.project(v, func(s string) (string, []string) { return entityKey(an, s) })
}

// project is put with the name normalisation given: buildGraph remembers
// the names it has seen (subjects repeat on most facts).
func (g *graph) project(v *memory.Version, keyOf func(string) (string, []string)) {
	if !Projectable(v) {
		return
	}
	if _, ok := g.claims[v.ID]; ok {
		return
	}
	sk, sterms := keyOf(v.Subject)
	ok, oterms := keyOf(v.Value)
	if sk == "" || ok == "" || len(oterms) > maxEntityTerms {
		return
	}
	c := graphClaim{subject: sk, object: ok}
	g.claims[v.ID] = c
	g.link(sk, sterms, v.Subject, claimRef{v.ID, c})
	if ok != sk {
		g.link(ok, oterms, v.Value, claimRef{v.ID, c})
	}
}

func (g *graph) link(key string, terms []string, name string, ref claimRef) {
	en, found := g.entities[key]
	if !found {
		en = &graphEntity{name: entityName(name), terms: terms}
		g.entities[key] = en
		g.byTerm[terms[0]] = append(g.byTerm[terms[0]], key)
	}
	en.claims = append(en.claims, ref)
}

// remove takes a version's claim out of the graph (the version was
// forgotten or quarantined), and an entity no claim names any more with
// it. Called with st.mu held.
func (g *graph) remove(id string) {
	c, ok := g.claims[id]
	if !ok {
		return
	}
	delete(g.claims, id)
	g.unlink(c.subject, id)
	if c.object != c.subject {
		g.unlink(c.object, id)
	}
}

func (g *graph) unlink(key, id string) {
	en, ok := g.entities[key]
	if !ok {
		return
	}
	if i := slices.IndexFunc(en.claims, func(r claimRef) bool { return r.id == id }); i >= 0 {
		en.claims = slices.Delete(en.claims, i, i+1)
	}
	if len(en.claims) > 0 {
		return
	}
	delete(g.entities, key)
	first := en.terms[0]
	g.byTerm[first] = slices.DeleteFunc(g.byTerm[first], func(k string) bool { return k == key })
	if len(g.byTerm[first]) == 0 {
		delete(g.byTerm, first)
	}
}

// other returns the entity at the other end of a claim from key.
func (c graphClaim) other(key string) string {
	if c.subject == key {
		return c.object
	}
	return c.subject
}

// named returns the keys of the entities a query names: every term of the
// entity's name is a term of the query, so "new york" is named by "who
// moved to New York?" and not by "is York new?"... nor by "new" alone.
func (g *graph) named(qset termSet, qterms []string) []string {
	var out []string
	for _, t := range qterms {
		for _, key := range g.byTerm[t] {
			en := g.entities[key]
			all := true
			for _, et := range en.terms {
				if !qset.has(et) {
					all = false
					break
				}
			}
			if all && !slices.Contains(out, key) {
				out = append(out, key)
			}
		}
	}
	return out
}

// buildGraph projects every indexed version; load calls it once the
// entries are in (the load path puts entries without an analyzer).
func (st *Namespace) buildGraph(an *search.Analyzer) {
	st.mu.Lock()
	defer st.mu.Unlock()
	ids := make([]string, 0, len(st.entries.m))
	for id, en := range st.entries.m {
		if Projectable(en.V) {
			ids = append(ids, id)
		}
	}
	// Ids grow with time: sorted, every entity's claims are oldest first,
	// as incremental puts keep them.
	slices.Sort(ids)
	g := newGraph()
	g.claims = make(map[string]graphClaim, len(ids))
	type normalised struct {
		key   string
		terms []string
	}
	seen := make(map[string]normalised)
	keyOf := func(s string) (string, []string) {
		if n, ok := seen[s]; ok {
			return n.key, n.terms
		}
		k, ts := entityKey(an, s)
		seen[s] = normalised{k, ts}
		return k, ts
	}
	for _, id := range ids {
		g.project(st.entries.must(id).V, keyOf)
	}
	st.graph = g
}

// graphHits is the graph channel: entities the query names, then the
// claims 1 and 2 hops from them. A claim scores by its hop (1 at one hop,
// WeightGraphHop2 at two) times how well it matches the question: a
// quarter for being reached at all, the rest for the share of its
// relation's words (key and slot aliases) the query uses, or in full when
// the query names both of its entities. "Where does the person who uses
// pnpm work?" names pnpm; one hop finds "Bob uses pnpm", two hops "Bob
// works at Acme", whose relation the question asks for: an answer no
// other channel ranks, because the question never names Bob.
//
// hop2 weighs a claim two hops away (a claim one hop away weighs 1); at
// most limit hits are returned. keep filters the claims' entries (it is
// given the entry, which the channel reads anyway, so a claim costs one
// lookup by id, not two). Call with the read lock held (RLock).
func (st *Namespace) GraphHitsLocked(qterms []string, keep func(*Entry) bool, hop2 float64, limit int) []search.Hit {
	g := st.graph
	if g == nil || len(qterms) == 0 || len(g.entities) == 0 {
		return nil
	}
	qset := newTermSet(qterms)
	seeds := g.named(qset, qterms)
	if len(seeds) == 0 {
		return nil
	}
	gs := graphScratches.Get().(*graphScratch)
	defer gs.release()
	hop, best, at := gs.hop, gs.best, gs.at
	for _, s := range seeds {
		hop[s] = 0
	}
	frontier := seeds
	scanned := 0
	for h := 1; h <= 2 && len(frontier) > 0 && scanned < graphScan; h++ {
		weight := 1.0
		if h == 2 {
			weight = hop2
		}
		// The next frontier, best bridge first: when the scan budget runs
		// out, the entities reached by claims that match the question
		// have been expanded.
		next := gs.next[:0]
		clear(at) // entity key → its place in next
		for _, key := range frontier {
			en := g.entities[key]
			if en == nil {
				continue
			}
			n := 0
			for i := len(en.claims) - 1; i >= 0 && n < graphFanout && scanned < graphScan; i-- {
				id, c := en.claims[i].id, en.claims[i].claim
				n++
				scanned++
				e, ok := st.entries.load(id)
				if !ok || !keep(e) {
					continue
				}
				// The claim joins key, reached at hop h-1 (the frontier's
				// hop), and far: the question names both (hop 0) only at
				// the first hop, and far's hop is looked up once, for
				// that and for whether far was reached already.
				far := c.other(key)
				farHop, seen := hop[far]
				score := weight * (0.25 + 0.75*claimMatch(e, h == 1 && seen && farHop == 0, qset))
				if score > best[id] {
					best[id] = score
				}
				if !seen {
					hop[far] = h
					at[far] = len(next)
					next = append(next, reached{far, score})
				} else if i, ok := at[far]; ok && next[i].score < score {
					next[i].score = score
				}
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].score > next[j].score })
		frontier = gs.frontier[:0]
		for _, n := range next {
			frontier = append(frontier, n.key)
		}
		gs.next, gs.frontier = next, frontier
	}
	hits := make([]search.Hit, 0, len(best))
	for id, s := range best {
		hits = append(hits, search.Hit{ID: id, Score: s})
	}
	// Each id is in best once, so the order is total: any sort gives it.
	slices.SortFunc(hits, func(a, b search.Hit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(b.ID, a.ID) // newer ids first
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// reached is an entity a claim reached, with the best score of the claims
// that reached it (graphHits' next frontier).
type reached struct {
	key   string
	score float64
}

// graphScratch is what one graph channel call uses and drops: the maps by
// entity and by claim and the frontiers (some 9 KB of a peers-workload
// retrieval), reused through graphScratches.
type graphScratch struct {
	hop      map[string]int     // entity key → the hop it was reached at
	best     map[string]float64 // claim id → its best score
	at       map[string]int     // entity key → its place in next
	next     []reached
	frontier []string
}

var graphScratches = sync.Pool{New: func() any {
	return &graphScratch{hop: map[string]int{}, best: map[string]float64{}, at: map[string]int{}}
}}

// release clears gs (it keeps no key alive) and puts it back.
func (gs *graphScratch) release() {
	clear(gs.hop)
	clear(gs.best)
	clear(gs.at)
	clear(gs.next)
	clear(gs.frontier)
	gs.next, gs.frontier = gs.next[:0], gs.frontier[:0]
	graphScratches.Put(gs)
}

// termSet is the query's terms as a set. A question has a few words, and
// the graph channel asks the set of every key term of every claim it scans
// (some 500 a query): a scan of a few strings costs less than hashing each
// term into a map, which it is only for a long query.
type termSet struct {
	few  []string
	many map[string]bool
}

// termSetScan is the most terms a termSet scans rather than hashes.
const termSetScan = 8

func newTermSet(terms []string) termSet {
	if len(terms) <= termSetScan {
		return termSet{few: terms}
	}
	m := make(map[string]bool, len(terms))
	for _, t := range terms {
		m[t] = true
	}
	return termSet{many: m}
}

func (s termSet) has(t string) bool {
	if s.many != nil {
		return s.many[t]
	}
	return slices.Contains(s.few, t)
}

// claimMatch is how well a claim matches a question, 0 to 1: 1 when the
// question names both its entities (bothNamed), else the share of its
// relation's key words the question uses (a slot alias counts as a key
// word).
func claimMatch(e *Entry, bothNamed bool, qset termSet) float64 {
	if bothNamed {
		return 1
	}
	if len(e.KeyTerms) == 0 {
		return 0
	}
	n := 0
	for _, t := range e.KeyTerms {
		if qset.has(t) {
			n++
		}
	}
	for _, t := range e.AliasTerms {
		if qset.has(t) {
			n++
		}
	}
	return math.Min(1, float64(n)/float64(len(e.KeyTerms)))
}

// Claim is one claim of a neighbourhood: the version that makes it, the
// display names of the entities it joins, and its hop from the entity
// asked about (1 for a claim about it, 2 for one about a neighbour).
type Claim struct {
	Subject, Object string
	V               *memory.Version
	Hop             int
}

// Reached is an entity of a neighbourhood, by display name, with its hop
// (0 for the entity asked about).
type Reached struct {
	Name string
	Hop  int
}

// Neighborhood is the part of the graph within some hops of an entity.
type Neighborhood struct {
	Entities  []Reached
	Claims    []Claim
	Truncated bool // more claims than the limit were in reach
}

// EntityName is how an entity is shown: lower-cased, spaces collapsed.
func EntityName(s string) string { return entityName(s) }

// Neighborhood returns the claims within hops of an entity that served
// lets through, at most limit: its own claims (hop 1), then the claims of
// the entities they name (hop 2), each hop ordered current first, then by
// subject, relation and newest validity; and the entities those claims
// name, in the order they were reached. An entity no served claim names
// has an empty neighbourhood.
func (st *Namespace) Neighborhood(entity string, hops, limit int, served func(*memory.Version) bool) Neighborhood {
	var res Neighborhood
	seed, _ := entityKey(st.cfg.Analyzer, entity)
	st.mu.RLock()
	defer st.mu.RUnlock()
	g := st.graph
	if g == nil || g.entities[seed] == nil {
		return res
	}
	hop := map[string]int{seed: 0}
	order := []string{seed}
	frontier := []string{seed}
	seen := make(map[string]bool) // claims listed at this hop or an earlier one
	for h := 1; h <= hops && len(frontier) > 0 && !res.Truncated; h++ {
		var layer []Claim
		var next []string
		for _, key := range frontier {
			for _, ref := range g.entities[key].claims {
				id, c := ref.id, ref.claim
				if seen[id] {
					continue
				}
				en, ok := st.entries.load(id)
				if !ok || !served(en.V) {
					continue
				}
				seen[id] = true
				far := c.other(key)
				if _, ok := hop[far]; !ok {
					hop[far] = h
					next = append(next, far)
				}
				layer = append(layer, Claim{Subject: g.entities[c.subject].name, Object: g.entities[c.object].name, V: en.V, Hop: h})
			}
		}
		sortClaims(layer)
		for _, c := range layer {
			if len(res.Claims) == limit {
				res.Truncated = true
				break
			}
			res.Claims = append(res.Claims, c)
		}
		order = append(order, next...)
		frontier = next
	}
	if len(res.Claims) == 0 {
		return res // nothing served names it: as if unknown
	}
	named := make(map[string]bool, 2*len(res.Claims))
	for _, c := range res.Claims {
		named[c.Subject], named[c.Object] = true, true
	}
	for _, key := range order {
		en := g.entities[key]
		if key == seed || named[en.name] {
			res.Entities = append(res.Entities, Reached{Name: en.name, Hop: hop[key]})
		}
	}
	return res
}

// sortClaims orders one hop's claims: current first, then by subject,
// relation and object, the newest validity first.
func sortClaims(cs []Claim) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.V.Status.Live() != b.V.Status.Live() {
			return a.V.Status.Live()
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		if a.V.Key != b.V.Key {
			return a.V.Key < b.V.Key
		}
		if !a.V.ValidFrom.Equal(b.V.ValidFrom) {
			return a.V.ValidFrom.After(b.V.ValidFrom)
		}
		return a.V.ID < b.V.ID
	})
}
