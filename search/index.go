package search

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// BM25 parameters: the usual defaults, which suit short memories as well as
// long documents once lengths are normalised by the average.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Doc is one document to index. Terms come from Analyzer.Terms; Vector may be
// zero (Dim 0) when the document has no embedding.
type Doc struct {
	ID     string
	Terms  []string
	Vector Vector
	// Marked is the document's mark (see Filter.Marked, SetMarked): a bit
	// the caller keeps per document and a query can filter on without a
	// call per document.
	Marked bool
}

// Filter is which documents a query may return. Both parts apply: with
// Marked only marked documents (Doc.Marked, SetMarked), read from a byte
// per ordinal under the index's read lock; with Keep (may be nil) only
// those Keep accepts, called lazily, for a document that would enter the
// current top k, under the read lock (it must not call back into the
// Index). A caller whose filter is "the documents I marked" passes Marked
// alone: no call and no lookup by ID per document.
type Filter struct {
	Marked bool
	Keep   func(id string) bool
}

// keeps applies f to ordinal d.
func (ix *Index) keeps(f Filter, d uint32) bool {
	if f.Marked && !ix.marks[d] {
		return false
	}
	return f.Keep == nil || f.Keep(ix.ids[d])
}

// Hit is one search result.
type Hit struct {
	ID    string
	Score float64
}

// TermScore is one query term's contribution to a document's BM25 score.
type TermScore struct {
	Term  string
	Score float64
}

// Index is one namespace's lexical (BM25, k1 = 1.2, b = 0.75) and vector
// index. It is safe for concurrent use: queries share a read lock, writes
// are serialised.
//
// Documents get dense uint32 ordinals so the hot path works on slices, not
// maps: every posting list (term → documents, sparse dimension → documents)
// is kept sorted by ordinal, a query accumulates scores in a pooled dense
// array indexed by ordinal, and only the candidates that could enter the top
// k are looked at by the caller's filter. Removal deletes the ordinal from
// its posting lists at once (a binary search and a memmove per list, a few
// microseconds) and recycles it, so there are no tombstones to skip at query
// time and document frequencies stay exact.
type Index struct {
	mu sync.RWMutex

	ids      []string       // ordinal → ID; "" for a free ordinal
	docLen   []uint32       // ordinal → number of terms, kept apart because BM25 reads it per posting
	vdim     []uint32       // ordinal → vector Dim (0 = none), kept apart for the same reason
	tailOf   []int32        // ordinal → docs[ord].tail, kept apart for tailSeeds, which reads it for every document the query's head touched
	marks    []bool         // ordinal → the document's mark (Doc.Marked, SetMarked); false for a free ordinal
	dimDocs  map[uint32]int // vector Dim → number of documents with it
	docs     []docInfo
	ordOf    map[string]uint32
	freeOrds []uint32
	live     int
	// idOrdered says the ordinals are in ID order (a < b ⇔ ids[a] <
	// ids[b] for live a, b), as they are when documents come in ID order
	// and none was removed and its ordinal reused: then worse breaks a tie
	// on the ordinals, not on the IDs (a string compare, two cache misses
	// away, for each of the thousands of documents a one-word query ties).
	// lastID is the ID of the last ordinal appended.
	idOrdered bool
	lastID    string

	termOf    map[string]uint32
	terms     []string // term ID → term; "" when recycled
	post      []postings
	freeTerms []uint32
	totalLen  uint64

	dimOf  map[uint32]uint32 // sparse dimension → index into vlists
	vlists []vlist
	dense  map[int]*denseBlock // dense vectors by Dim, scanned brute force
	// tailN declares, per vector Dim, how many trailing dimensions of a
	// sparse vector are a dense part (SetDenseTail); tails holds those
	// parts row-wise by vector Dim.
	tailN map[int]int
	tails map[int]*denseBlock

	wTerms []uint32 // writer scratch, guarded by the write lock

	// rotating counts the blocks whose axes rotateLater is computing.
	rotating sync.WaitGroup

	scratch sync.Pool // *scratch for queries
}

// docInfo is what removal needs to find a document in the posting lists.
type docInfo struct {
	feat   []uint32 // distinct term IDs, then the sparse vector's dimensions
	nTerms uint32
	vdim   uint32 // vector Dim; 0 = no vector
	dense  int32  // slot in dense[vdim]; -1 when the vector is sparse or absent
	tail   int32  // slot in tails[vdim]; -1 when the vector has no dense tail
}

type postings struct {
	docs []uint32
	tfs  []uint16 // saturating: a term seen 65535 times scores like one seen more
}

type vlist struct {
	// One slice of pairs rather than two parallel slices: half the appends
	// and growth copies while building, and one cache stream when scanning.
	posts []vpost
	// maxAbs bounds |vals|. It only grows (removal leaves it stale but
	// still a valid bound), and lets Semantic skip lists that cannot lift a
	// new document over the floor.
	maxAbs float32
}

type vpost struct {
	doc uint32
	val float32
}

type denseBlock struct {
	dim  int
	ords []uint32
	vals []float32 // len(ords) rows of dim values
	// rest holds, for a tail block, two values per row: its L2 norm past
	// the first and past the second checkpoint (tailCuts), the bounds that
	// let a scan skip most rows after reading an eighth or a half of them
	// (see tailTopK).
	rest []float32
	// lead holds, for a tail block, each row's first coordinates on the
	// block's axes (tailrot.go; until it has axes, a copy of the row's
	// values before the first checkpoint), row after row, and rest[2*slot]
	// the norm of its other coordinates: the first checkpoint's bound. A scan reads them for every row and
	// the rest of a row for about a third: read from the rows, the first
	// values of 10,000 rows were 10,000 cache lines a row's length apart
	// (2.5 MB at 64 values, more than the L2); here they are 320 KB read
	// in order.
	lead []float32
	// lead2 and rest2 hold, for a tail block with axes (tailDeep), each
	// row's next coordinates on them (two groups as large as lead, the
	// second zero unless the block has three groups of axes: tailDeeper)
	// and the norms of the coordinates past each group (two a row): a
	// second and a third bound between the first checkpoint and the row's
	// values, read from one 64-byte run a row (and 8 bytes of rest2) kept
	// in order, rather than from the row (a cache miss on most rows that
	// pass the first checkpoint). Zero until the block has axes.
	lead2 []float32
	rest2 []float32
	// mid holds, for a tail block, each row's L2 norm past its first
	// sixteen values (or its end): a third bound, checked eight values into
	// the middle run of a 64-value row (see tailScan).
	mid []float32
	// moment is the upper triangle of Σ row·rowᵀ over the rows (dim×dim)
	// until axes, the first tailCuts(dim) principal axes, are computed
	// from it (nil: the identity); see tailrot.go.
	moment []float64
	axes   []float64
	// rotPending says a bulk load left the axes to rotateLater, which
	// computes them from the rows after Build returns: until it installs
	// them the block keeps no moment and the scan uses the plain bound
	// (lead holds the rows' own first values, a valid bound too).
	rotPending bool
	// gen counts the changes to the block's rows, so rotateLater can tell
	// whether the rows it projected under the read lock are still the
	// block's when it takes the write lock.
	gen uint64
	// maxNorm bounds the L2 norm of a tail block's rows (rounded up; it
	// only grows, so a removal leaves it stale but still a bound): a row
	// whose document the query's head did not touch scores at most
	// |q_tail|·maxNorm (see tailTopK).
	maxNorm float32
}

// tailCuts returns the two checkpoints of a tail row of n values, an
// eighth and a half of it, where a scan decides whether the rest can
// matter (of the pairs tried, the fewest multiply-adds on generated text). Embedders put their strongest dimensions first (principal
// components in order), so the bound shrinks fast.
func tailCuts(n int) (int, int) { return max(1, n/8), max(1, n/2) }

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		idOrdered: true,
		ordOf:     make(map[string]uint32),
		termOf:    make(map[string]uint32),
		dimOf:     make(map[uint32]uint32),
		dense:     make(map[int]*denseBlock),
		tailN:     make(map[int]int),
		tails:     make(map[int]*denseBlock),
		dimDocs:   make(map[uint32]int),
	}
}

// SetDenseTail declares that sparse vectors of Dim dim end in a dense part:
// their last n dimensions are set in (nearly) every document, as when an
// embedder appends word-vector dimensions to hashed features. Posting lists
// for such dimensions would hold every document and defeat the inverted
// index's pruning, so those dimensions are kept row-wise instead and
// scanned, like dense vectors, while the rest of each vector stays in
// posting lists. Scores are the same either way. It must be called before
// the first document is added; later calls are ignored.
func (ix *Index) SetDenseTail(dim, n int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if n <= 0 || n >= dim || len(ix.ids) > 0 {
		return
	}
	ix.tailN[dim] = n
}

// headLen returns how many of v's sparse entries lie before its last n
// dimensions.
func headLen(v Vector, n int) int {
	lo := uint32(v.Dim - n)
	k, _ := slices.BinarySearch(v.Indices, lo)
	return k
}

// Len returns the number of documents.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Has reports whether a document with this ID is indexed.
func (ix *Index) Has(id string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.ordOf[id]
	return ok
}

// Upsert adds d, or replaces the document with the same ID. The vector is
// copied and normalised, so the caller may reuse d afterwards. A vector that
// is malformed beyond repair (non-finite values, wrong dense length, all
// zero) is treated as absent.
func (ix *Index) Upsert(d Doc) {
	vec, hasVec := canonical(d.Vector) // outside the lock: it allocates
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.upsertLocked(d.ID, d.Terms, vec, hasVec)
	ix.marks[ix.ordOf[d.ID]] = d.Marked
}

// SetMarked sets the mark of the document with this ID (see Filter); it is
// a no-op if absent.
func (ix *Index) SetMarked(id string, on bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ord, ok := ix.ordOf[id]; ok {
		ix.marks[ord] = on
	}
}

// Build upserts many documents under one lock acquisition, the fast path
// for loading a namespace from the store at start.
func (ix *Index) Build(docs []Doc) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.live == 0 && len(ix.ids) == 0 && ix.bulkLoad(docs) {
		return
	}
	for i := range docs {
		vec, ok := canonical(docs[i].Vector)
		ix.upsertLocked(docs[i].ID, docs[i].Terms, vec, ok)
		ix.marks[ix.ordOf[docs[i].ID]] = docs[i].Marked
	}
}

// bulkLoad fills an empty index from docs in two passes: the first assigns
// ordinals, term IDs and list indices and counts every list's length, the
// second appends into lists carved at their exact size from one arena per
// kind. Compared with growing each list by appends this saves the growth
// copies, most allocations and the slack of doubling, roughly halving build
// time and trimming memory. Later upserts append past a carved list's
// capacity, which moves that list out of the arena, so the arena is only
// partly reclaimed under heavy churn. It returns false, leaving the index
// empty, if docs repeat an ID (the caller then upserts one by one so the
// last version wins).
func (ix *Index) bulkLoad(docs []Doc) bool {
	ordOf := make(map[string]uint32, len(docs))
	for i := range docs {
		if _, dup := ordOf[docs[i].ID]; dup {
			return false
		}
		ordOf[docs[i].ID] = uint32(i)
	}
	ix.ordOf = ordOf
	for i := range docs {
		if i > 0 && docs[i-1].ID >= docs[i].ID {
			ix.idOrdered = false
			break
		}
	}
	if n := len(docs); n > 0 {
		ix.lastID = docs[n-1].ID
	}
	ix.live = len(docs)
	ix.ids = make([]string, len(docs))
	ix.docLen = make([]uint32, len(docs))
	ix.vdim = make([]uint32, len(docs))
	ix.tailOf = make([]int32, len(docs))
	ix.marks = make([]bool, len(docs))
	ix.docs = make([]docInfo, len(docs))

	nTerms, nDims := 0, 0
	for i := range docs {
		nTerms += len(docs[i].Terms)
		// Only the head of a vector with a dense tail has posting lists:
		// counting the tail too sized lis at three times its use.
		v := &docs[i].Vector
		if n := ix.tailN[v.Dim]; n > 0 && v.Indices != nil {
			nDims += headLen(*v, n)
		} else {
			nDims += len(v.Indices)
		}
	}
	// Rows of the dense blocks, counted first so each block is carved
	// once at its size (an upper bound: a vector canonical refuses takes
	// no row; blocks left empty are dropped below).
	rows, tailRows := map[int]int{}, map[int]int{}
	maxDim := 0
	for i := range docs {
		v := &docs[i].Vector
		if v.Dim <= 0 || v.Dim > maxVecDim {
			continue
		}
		maxDim = max(maxDim, v.Dim)
		switch {
		case v.Indices == nil:
			rows[v.Dim]++
		case ix.tailN[v.Dim] > 0:
			tailRows[v.Dim]++
		}
	}
	for dim, n := range rows {
		ix.dense[dim] = &denseBlock{dim: dim, ords: make([]uint32, 0, n), vals: make([]float32, 0, n*dim)}
	}
	for dim, n := range tailRows {
		w := ix.tailN[dim]
		c1, _ := tailCuts(w)
		ix.tails[dim] = &denseBlock{dim: w, ords: make([]uint32, 0, n), vals: make([]float32, 0, n*w),
			rest: make([]float32, 0, 2*n), lead: make([]float32, 0, n*c1), mid: make([]float32, 0, n),
			lead2: make([]float32, 0, n*2*c1), rest2: make([]float32, 0, 2*n),
			rotPending: true}
	}
	// Sparse dimension → its list plus one, read for every posting: a
	// slice rather than the map when the dimensions are few enough to
	// index (2^18 hashed features and a word-vector tail: 1 MB for the
	// load). The map is filled once at the end, at its size.
	var listOf []uint32
	if maxDim <= 1<<22 && len(ix.vlists) == 0 {
		listOf = make([]uint32, maxDim)
	}
	var listDims []uint32 // list index → its dimension, for the map
	dimList := func(j uint32) uint32 {
		if listOf == nil {
			return ix.dimList(j)
		}
		if li := listOf[j]; li > 0 {
			return li - 1
		}
		li := uint32(len(ix.vlists))
		ix.vlists = append(ix.vlists, vlist{})
		listDims = append(listDims, j)
		listOf[j] = li + 1
		return li
	}
	var (
		tfs    = make([]uint16, 0, nTerms) // per document, per distinct term, in feat order
		lis    = make([]uint32, 0, nDims)  // per document, per sparse dimension: its list
		tcount []int                       // term ID → postings
		vcount []int                       // list index → postings
		vecs   = make([]Vector, len(docs))
	)
	for i := range docs {
		d := &docs[i]
		ix.ids[i] = d.ID
		ix.marks[i] = d.Marked
		tids := ix.wTerms[:0]
		for _, t := range d.Terms {
			tid := ix.termID(t)
			if int(tid) == len(tcount) {
				tcount = append(tcount, 0)
			}
			tids = append(tids, tid)
		}
		slices.Sort(tids)
		ix.wTerms = tids
		vec, hasVec := canonical(d.Vector)
		nnz := 0
		if hasVec && vec.Indices != nil {
			nnz = len(vec.Indices)
		}
		feat := make([]uint32, 0, len(tids)+nnz)
		for k := 0; k < len(tids); {
			j := k + 1
			for j < len(tids) && tids[j] == tids[k] {
				j++
			}
			feat = append(feat, tids[k])
			tfs = append(tfs, uint16(min(j-k, math.MaxUint16)))
			tcount[tids[k]]++
			k = j
		}
		ix.docLen[i] = uint32(len(d.Terms))
		ix.totalLen += uint64(len(d.Terms))
		info := docInfo{nTerms: uint32(len(feat)), dense: -1, tail: -1}
		if hasVec {
			info.vdim = uint32(vec.Dim)
			ix.vdim[i] = info.vdim
			ix.dimDocs[info.vdim]++
			if n := ix.tailN[vec.Dim]; n > 0 && vec.Indices != nil {
				info.tail = ix.addTail(uint32(i), vec, n, false)
				k := headLen(vec, n)
				vec.Indices, vec.Values = vec.Indices[:k], vec.Values[:k]
			}
			vecs[i] = vec
			if vec.Indices != nil {
				for _, j := range vec.Indices {
					li := dimList(j)
					if int(li) == len(vcount) {
						vcount = append(vcount, 0)
					}
					vcount[li]++
					lis = append(lis, li)
				}
				feat = append(feat, vec.Indices...)
			} else {
				info.dense = ix.addDense(uint32(i), vec)
			}
		}
		info.feat = feat
		ix.docs[i] = info
		ix.tailOf[i] = info.tail
	}
	if listOf != nil {
		ix.dimOf = make(map[uint32]uint32, len(listDims))
		for li, j := range listDims {
			ix.dimOf[j] = uint32(li)
		}
	}
	for dim, blk := range ix.dense {
		if len(blk.ords) == 0 { // every vector counted for it was refused
			delete(ix.dense, dim)
		}
	}
	for dim, blk := range ix.tails {
		if len(blk.ords) == 0 {
			delete(ix.tails, dim)
			continue
		}
		ix.rotateAfterBuild(blk)
	}

	total := 0
	for _, c := range tcount {
		total += c
	}
	docArena, tfArena := make([]uint32, total), make([]uint16, total)
	off := 0
	for tid, c := range tcount {
		ix.post[tid] = postings{docs: docArena[off : off : off+c], tfs: tfArena[off : off : off+c]}
		off += c
	}
	total = 0
	for _, c := range vcount {
		total += c
	}
	vArena := make([]vpost, total)
	off = 0
	for li, c := range vcount {
		ix.vlists[li].posts = vArena[off : off : off+c]
		off += c
	}

	ti, vi := 0, 0
	for i := range docs {
		ord := uint32(i)
		info := &ix.docs[i]
		for _, tid := range info.feat[:info.nTerms] {
			p := &ix.post[tid]
			p.docs = append(p.docs, ord)
			p.tfs = append(p.tfs, tfs[ti])
			ti++
		}
		if vec := vecs[i]; vec.Indices != nil {
			for _, v := range vec.Values {
				l := &ix.vlists[lis[vi]]
				vi++
				l.posts = append(l.posts, vpost{ord, v})
				l.maxAbs = max(l.maxAbs, float32(math.Abs(float64(v))))
			}
		}
	}
	return true
}

// Remove deletes the document with this ID; it is a no-op if absent.
func (ix *Index) Remove(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ord, ok := ix.ordOf[id]
	if !ok {
		return
	}
	ix.unindex(ord)
	delete(ix.ordOf, id)
	ix.ids[ord] = ""
	ix.marks[ord] = false
	ix.freeOrds = append(ix.freeOrds, ord)
	ix.live--
}

func (ix *Index) upsertLocked(id string, terms []string, vec Vector, hasVec bool) {
	ord, ok := ix.ordOf[id]
	if ok {
		ix.unindex(ord)
	} else {
		ord = ix.newOrd(id)
	}

	tids := ix.wTerms[:0]
	for _, t := range terms {
		tids = append(tids, ix.termID(t))
	}
	slices.Sort(tids)
	ix.wTerms = tids
	distinct := 0
	for i := range tids {
		if i == 0 || tids[i] != tids[i-1] {
			distinct++
		}
	}
	nnz := 0
	if hasVec && vec.Indices != nil {
		nnz = len(vec.Indices)
	}
	feat := make([]uint32, 0, distinct+nnz)
	for i := 0; i < len(tids); {
		j := i + 1
		for j < len(tids) && tids[j] == tids[i] {
			j++
		}
		ix.post[tids[i]].insert(ord, j-i)
		feat = append(feat, tids[i])
		i = j
	}
	ix.docLen[ord] = uint32(len(terms))
	ix.totalLen += uint64(len(terms))

	info := docInfo{nTerms: uint32(distinct), dense: -1, tail: -1}
	if hasVec {
		info.vdim = uint32(vec.Dim)
		ix.vdim[ord] = info.vdim
		ix.dimDocs[info.vdim]++
		if vec.Indices != nil {
			head := vec.Indices
			if n := ix.tailN[vec.Dim]; n > 0 {
				head = head[:headLen(vec, n)]
				info.tail = ix.addTail(ord, vec, n, true)
			}
			for k, j := range head {
				ix.vlists[ix.dimList(j)].insert(ord, vec.Values[k])
			}
			feat = append(feat, head...)
		} else {
			info.dense = ix.addDense(ord, vec)
		}
	}
	info.feat = feat
	ix.docs[ord] = info
	ix.tailOf[ord] = info.tail
}

func (ix *Index) newOrd(id string) uint32 {
	var ord uint32
	if n := len(ix.freeOrds); n > 0 {
		ord = ix.freeOrds[n-1]
		ix.freeOrds = ix.freeOrds[:n-1]
		ix.ids[ord] = id
		ix.marks[ord] = false
		ix.idOrdered = false // a reused ordinal is out of place
	} else {
		ord = uint32(len(ix.ids))
		ix.idOrdered = ix.idOrdered && (ord == 0 || ix.lastID < id)
		ix.lastID = id
		ix.ids = append(ix.ids, id)
		ix.docLen = append(ix.docLen, 0)
		ix.vdim = append(ix.vdim, 0)
		ix.tailOf = append(ix.tailOf, -1)
		ix.marks = append(ix.marks, false)
		ix.docs = append(ix.docs, docInfo{})
	}
	ix.ordOf[id] = ord
	ix.live++
	return ord
}

// unindex removes ordinal ord from every posting list it is in and clears
// its lengths; the ordinal itself stays assigned.
func (ix *Index) unindex(ord uint32) {
	info := ix.docs[ord]
	for _, tid := range info.feat[:info.nTerms] {
		p := &ix.post[tid]
		p.remove(ord)
		if len(p.docs) == 0 {
			// Recycle the term ID so a stream of one-off tokens (hashes,
			// IDs) replaced over time does not grow the vocabulary forever.
			delete(ix.termOf, ix.terms[tid])
			ix.terms[tid] = ""
			*p = postings{}
			ix.freeTerms = append(ix.freeTerms, tid)
		}
	}
	for _, j := range info.feat[info.nTerms:] {
		if li, ok := ix.dimOf[j]; ok {
			ix.vlists[li].remove(ord)
		}
	}
	if info.dense >= 0 {
		ix.removeDense(int(info.vdim), info.dense)
	}
	if info.tail >= 0 {
		ix.removeTail(int(info.vdim), info.tail)
	}
	if info.vdim != 0 {
		if ix.dimDocs[info.vdim]--; ix.dimDocs[info.vdim] == 0 {
			delete(ix.dimDocs, info.vdim)
		}
	}
	ix.totalLen -= uint64(ix.docLen[ord])
	ix.docLen[ord] = 0
	ix.vdim[ord] = 0
	ix.docs[ord] = docInfo{dense: -1, tail: -1}
	ix.tailOf[ord] = -1
}

func (ix *Index) termID(t string) uint32 {
	if id, ok := ix.termOf[t]; ok {
		return id
	}
	var id uint32
	if n := len(ix.freeTerms); n > 0 {
		id = ix.freeTerms[n-1]
		ix.freeTerms = ix.freeTerms[:n-1]
		ix.terms[id] = t
	} else {
		id = uint32(len(ix.terms))
		ix.terms = append(ix.terms, t)
		ix.post = append(ix.post, postings{})
	}
	ix.termOf[t] = id
	return id
}

func (ix *Index) dimList(j uint32) uint32 {
	if li, ok := ix.dimOf[j]; ok {
		return li
	}
	li := uint32(len(ix.vlists))
	ix.vlists = append(ix.vlists, vlist{})
	ix.dimOf[j] = li
	return li
}

func (ix *Index) addDense(ord uint32, v Vector) int32 {
	blk := ix.dense[v.Dim]
	if blk == nil {
		blk = &denseBlock{dim: v.Dim}
		ix.dense[v.Dim] = blk
	}
	blk.ords = append(blk.ords, ord)
	blk.vals = append(blk.vals, v.Values...)
	return int32(len(blk.ords) - 1)
}

// addTail stores the last n dimensions of the sparse vector v as a dense row
// of tails[v.Dim] and returns its slot. rotate says to compute the block's
// axes again if it has doubled since (a bulk load does it once at the end).
func (ix *Index) addTail(ord uint32, v Vector, n int, rotate bool) int32 {
	blk := ix.tails[v.Dim]
	if blk == nil {
		blk = &denseBlock{dim: n}
		ix.tails[v.Dim] = blk
	}
	lo := uint32(v.Dim - n)
	row := len(blk.vals)
	blk.vals = append(blk.vals, make([]float32, n)...)
	for k := headLen(v, n); k < len(v.Indices); k++ {
		blk.vals[row+int(v.Indices[k]-lo)] = v.Values[k]
	}
	c1, c2 := tailCuts(n)
	vals := blk.vals[row : row+n]
	blk.lead = append(blk.lead, make([]float32, c1)...)
	blk.lead2 = append(blk.lead2, make([]float32, 2*c1)...)
	blk.rest = append(blk.rest, blk.tailLead(vals, blk.lead[len(blk.lead)-c1:]), norm(vals[c2:]))
	r2, r3 := blk.tailLead2(vals, blk.lead2[len(blk.lead2)-2*c1:])
	blk.rest2 = append(blk.rest2, r2, r3)
	blk.mid = append(blk.mid, norm(vals[min(c1+8, n):]))
	blk.maxNorm = max(blk.maxNorm, roundUp32(normF64(vals)))
	blk.ords = append(blk.ords, ord)
	blk.gen++
	blk.tailMoment(vals, 1)
	if rotate {
		blk.tailRotate(false)
	}
	return int32(len(blk.ords) - 1)
}

// removeTail deletes a tail row by moving the last row into its place.
func (ix *Index) removeTail(vdim int, slot int32) {
	blk := ix.tails[vdim]
	n := blk.dim
	c1, _ := tailCuts(n)
	last := int32(len(blk.ords) - 1)
	blk.gen++
	blk.tailMoment(blk.vals[int(slot)*n:int(slot+1)*n], -1)
	if slot != last {
		moved := blk.ords[last]
		blk.ords[slot] = moved
		blk.rest[2*slot], blk.rest[2*slot+1] = blk.rest[2*last], blk.rest[2*last+1]
		blk.mid[slot] = blk.mid[last]
		copy(blk.vals[int(slot)*n:int(slot+1)*n], blk.vals[int(last)*n:])
		copy(blk.lead[int(slot)*c1:int(slot+1)*c1], blk.lead[int(last)*c1:])
		copy(blk.lead2[int(slot)*2*c1:int(slot+1)*2*c1], blk.lead2[int(last)*2*c1:])
		blk.rest2[2*slot], blk.rest2[2*slot+1] = blk.rest2[2*last], blk.rest2[2*last+1]
		ix.docs[moved].tail = slot
		ix.tailOf[moved] = slot
	}
	blk.ords = blk.ords[:last]
	blk.rest = blk.rest[:2*last]
	blk.mid = blk.mid[:last]
	blk.vals = blk.vals[:int(last)*n]
	blk.lead = blk.lead[:int(last)*c1]
	blk.lead2 = blk.lead2[:int(last)*2*c1]
	blk.rest2 = blk.rest2[:2*last]
	if last == 0 {
		delete(ix.tails, vdim)
	}
}

// removeDense deletes a row by moving the last row into its place.
func (ix *Index) removeDense(dim int, slot int32) {
	blk := ix.dense[dim]
	last := int32(len(blk.ords) - 1)
	if slot != last {
		moved := blk.ords[last]
		blk.ords[slot] = moved
		copy(blk.vals[int(slot)*dim:int(slot+1)*dim], blk.vals[int(last)*dim:])
		ix.docs[moved].dense = slot
	}
	blk.ords = blk.ords[:last]
	blk.vals = blk.vals[:int(last)*dim]
	if last == 0 {
		delete(ix.dense, dim)
	}
}

// insert adds ord, keeping docs sorted. Fresh ordinals are the largest, so
// the common case is an append.
func (p *postings) insert(ord uint32, tf int) {
	t := uint16(min(tf, math.MaxUint16))
	if n := len(p.docs); n == 0 || p.docs[n-1] < ord {
		p.docs = append(p.docs, ord)
		p.tfs = append(p.tfs, t)
		return
	}
	i, found := slices.BinarySearch(p.docs, ord)
	if found {
		p.tfs[i] = t
		return
	}
	p.docs = slices.Insert(p.docs, i, ord)
	p.tfs = slices.Insert(p.tfs, i, t)
}

func (p *postings) remove(ord uint32) {
	if i, found := slices.BinarySearch(p.docs, ord); found {
		p.docs = slices.Delete(p.docs, i, i+1)
		p.tfs = slices.Delete(p.tfs, i, i+1)
	}
}

func (l *vlist) insert(ord uint32, v float32) {
	l.maxAbs = max(l.maxAbs, float32(math.Abs(float64(v))))
	if n := len(l.posts); n == 0 || l.posts[n-1].doc < ord {
		l.posts = append(l.posts, vpost{ord, v})
		return
	}
	i, found := l.search(ord)
	if found {
		l.posts[i].val = v
		return
	}
	l.posts = slices.Insert(l.posts, i, vpost{ord, v})
}

func (l *vlist) remove(ord uint32) {
	if i, found := l.search(ord); found {
		l.posts = slices.Delete(l.posts, i, i+1)
	}
}

func (l *vlist) search(ord uint32) (int, bool) {
	return slices.BinarySearchFunc(l.posts, ord, func(p vpost, t uint32) int { return cmp.Compare(p.doc, t) })
}

// scratch is a query's working memory, pooled because a 100k-document
// accumulator is 400 KB. Invariant between uses: acc is all zero and seen
// all clear.
type scratch struct {
	acc     []float32
	matched []uint8 // per ordinal, how many distinct query terms Lexical found in it
	seen    []uint64
	touched []uint32
	heap    []cand
	tids    []uint32
	// rel and relDocs are addRelated's: per ordinal the best related
	// term's weight (zero between queries), and the ordinals set.
	rel     []float32
	relDocs []uint32
	qdims   []qdim
	cands   []uint32
	sorted  []uint32 // cands in ordinal order, for galloping
	qtail   []float32
	qlead   []float32 // the query tail's coordinates on a block's axes
	qlead2  []float32 // and its next ones (tailDeep)
	heap2   []cand    // the second half's heap in a parallel tail scan
	// seedHeap and seeds are tailSeeds' heap and result.
	seedHeap []cand
	seeds    []int32
	// others and slotSeen are touchedOnly's result and its bitset over a
	// block's slots (all zero between calls).
	others   []int32
	slotSeen []uint64
}

// qdim is one nonzero query dimension with its posting list and the most it
// can add to any document's score.
type qdim struct {
	list *vlist
	qv   float32
	ub   float64
}

type cand struct {
	score float32
	ord   uint32
}

func (ix *Index) getScratch() *scratch {
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	if n := len(ix.ids); len(sc.acc) < n {
		n += n / 4
		sc.acc = make([]float32, n)
		sc.matched = make([]uint8, n)
		sc.seen = make([]uint64, (n+63)/64)
	}
	return sc
}

func (ix *Index) putScratch(sc *scratch, touched []uint32) {
	for _, d := range touched {
		sc.acc[d] = 0
		sc.seen[d/64] = 0
		sc.matched[d] = 0
	}
	sc.touched = touched[:0]
	ix.scratch.Put(sc)
}

// bm25 holds the per-query constants of the BM25 term weight
//
//	idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl))
//
// with the Lucene idf ln(1 + (N − df + 0.5) / (df + 0.5)), which is never
// negative, so a very common term cannot push a document down.
type bm25 struct {
	n      float64
	c0, c1 float32
}

func (ix *Index) bm25() bm25 {
	n := float64(ix.live)
	avgdl := float64(ix.totalLen) / max(n, 1)
	if avgdl == 0 {
		avgdl = 1
	}
	return bm25{n: n, c0: bm25K1 * (1 - bm25B), c1: float32(bm25K1 * bm25B / avgdl)}
}

func (p bm25) idf(df int) float32 {
	return float32(math.Log(1 + (p.n-float64(df)+0.5)/(float64(df)+0.5)))
}

func (p bm25) weight(idf float32, tf uint16, dl uint32) float32 {
	f := float32(tf)
	return idf * (bm25K1 + 1) * f / (f + p.c0 + p.c1*float32(dl))
}

// distinctTermIDs resolves query terms to term IDs, skipping unknown and
// repeated terms: a repeated query term is one piece of evidence, not two.
func (ix *Index) distinctTermIDs(terms []string, buf []uint32) []uint32 {
	buf = buf[:0]
	for _, t := range terms {
		tid, ok := ix.termOf[t]
		if ok && !slices.Contains(buf, tid) {
			buf = append(buf, tid)
		}
	}
	return buf
}

// Lexical returns the top k documents by BM25 for the query terms, best
// first, ties broken by ID. keep (may be nil) filters documents; it is called
// lazily, only for a document that would enter the current top k, and under
// the index's read lock, so it must not call back into the Index.
func (ix *Index) Lexical(terms []string, k int, keep func(id string) bool) []Hit {
	return ix.lexical(terms, k, Filter{Keep: keep}, false)
}

// LexicalFiltered is Lexical (or LexicalAllTerms, with allTerms) with a
// Filter for keep.
func (ix *Index) LexicalFiltered(terms []string, k int, f Filter, allTerms bool) []Hit {
	return ix.lexical(terms, k, f, allTerms)
}

// LexicalAllTerms is Lexical for a query whose every word is a requirement
// (a few keywords, not a question): each document's BM25 score is scaled
// by the share of the query's distinct known terms it holds, so one holding
// all of them outranks a short one holding the rarest alone. BM25
// saturates and normalises by length, which put such a note within a few
// percent of the only note holding every keyword.
func (ix *Index) LexicalAllTerms(terms []string, k int, keep func(id string) bool) []Hit {
	return ix.lexical(terms, k, Filter{Keep: keep}, true)
}

func (ix *Index) lexical(terms []string, k int, keep Filter, coordinate bool) []Hit {
	return ix.lexicalWith(terms, nil, 0, k, keep, coordinate)
}

// LexicalRelated is LexicalFiltered (never coordinated) with related
// terms beside the query's: each document's score is its BM25 over terms
// plus weight times its BM25 over the related terms it holds, of which
// only the best one counts (a document naming three related words is no
// better evidence than one naming one). A related term that is also a
// query term counts as a query term.
func (ix *Index) LexicalRelated(terms, related []string, weight float32, k int, f Filter) []Hit {
	return ix.lexicalWith(terms, related, weight, k, f, false)
}

func (ix *Index) lexicalWith(terms, related []string, weight float32, k int, keep Filter, coordinate bool) []Hit {
	if k <= 0 || len(terms) == 0 {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return nil
	}
	sc := ix.getScratch()
	sc.tids = ix.distinctTermIDs(terms, sc.tids)
	p := ix.bm25()
	acc, touched, docLen := sc.acc, sc.touched[:0], ix.docLen
	matched := sc.matched
	for _, tid := range sc.tids {
		pl := &ix.post[tid]
		idf := p.idf(len(pl.docs))
		tfs := pl.tfs[:len(pl.docs)]
		for i, d := range pl.docs {
			// BM25 weights are positive, so a zero accumulator means the
			// document has not been seen by this query yet.
			if acc[d] == 0 {
				touched = append(touched, d)
			}
			acc[d] += p.weight(idf, tfs[i], docLen[d])
			matched[d]++
		}
	}
	if len(related) > 0 && weight > 0 {
		touched = ix.addRelated(sc, touched, related, weight, p)
	}
	// Coordination (LexicalAllTerms): the score times the share of the
	// query's terms the document holds. matched counts to 255: a query of
	// more distinct terms (MaxQueryTerms allows 256) is left as it is.
	if nq := len(sc.tids); coordinate && nq > 1 && nq <= math.MaxUint8 {
		for _, d := range touched {
			if m := int(matched[d]); m < nq {
				acc[d] *= float32(m) / float32(nq)
			}
		}
	}
	hits := ix.topK(sc, touched, k, math.Inf(-1), 0, keep)
	ix.putScratch(sc, touched)
	return hits
}

// addRelated adds to sc.acc, for each document holding some of the related
// terms that are not query terms (sc.tids), weight times the best BM25
// weight among them, and returns touched with the documents it saw first.
func (ix *Index) addRelated(sc *scratch, touched []uint32, related []string, weight float32, p bm25) []uint32 {
	var rel []uint32
	for _, t := range related {
		tid, ok := ix.termOf[t]
		if ok && !slices.Contains(sc.tids, tid) && !slices.Contains(rel, tid) {
			rel = append(rel, tid)
		}
	}
	if len(rel) == 0 {
		return touched
	}
	if len(sc.rel) < len(sc.acc) {
		sc.rel = make([]float32, len(sc.acc))
	}
	// best holds each document's best related weight while the related
	// terms are walked; relDocs the documents it holds one for.
	best, docs := sc.rel, sc.relDocs[:0]
	for _, tid := range rel {
		pl := &ix.post[tid]
		idf := p.idf(len(pl.docs))
		tfs := pl.tfs[:len(pl.docs)]
		for i, d := range pl.docs {
			w := p.weight(idf, tfs[i], ix.docLen[d])
			if best[d] == 0 {
				docs = append(docs, d)
			}
			if w > best[d] {
				best[d] = w
			}
		}
	}
	for _, d := range docs {
		if sc.acc[d] == 0 {
			touched = append(touched, d)
		}
		sc.acc[d] += weight * best[d]
		best[d] = 0
	}
	sc.relDocs = docs[:0]
	return touched
}

// Semantic returns the top k documents by cosine similarity ≥ floor, best
// first, ties broken by ID, with the same keep contract as Lexical (on a
// dense tail of parallelTailRows rows or more, keep is called from two
// goroutines at once: it must be safe for concurrent use). Only
// documents whose vector has the query's Dim can match. Sparse vectors are
// scored exactly through per-dimension posting lists, visiting only the
// query's nonzero dimensions; dense vectors are compared brute force.
func (ix *Index) Semantic(q Vector, k int, floor float64, keep func(id string) bool) []Hit {
	return ix.SemanticFiltered(q, k, floor, Filter{Keep: keep})
}

// SemanticFiltered is Semantic with a Filter for keep.
func (ix *Index) SemanticFiltered(q Vector, k int, floor float64, keep Filter) []Hit {
	if k <= 0 {
		return nil
	}
	cq, ok := canonical(q)
	if !ok {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.dimDocs[uint32(cq.Dim)] == 0 {
		return nil
	}
	sc := ix.getScratch()
	acc, seen, touched := sc.acc, sc.seen, sc.touched[:0]

	// Order the query's dimensions by impact, the largest possible
	// contribution |q_j| · max_d |v_dj|. With the built-in embedder a few
	// word and concept dimensions carry most of the score while dozens of
	// character n-gram dimensions each add little but have long lists.
	// A dense tail (SetDenseTail) is scored by scanning its rows; only the
	// head of the query goes through the posting lists.
	var qtail []float32
	tailBlk := ix.tails[cq.Dim]
	if n := ix.tailN[cq.Dim]; n > 0 && cq.Indices != nil {
		k := headLen(cq, n)
		qtail = append(sc.qtail[:0], make([]float32, n)...)
		lo := uint32(cq.Dim - n)
		for i := k; i < len(cq.Indices); i++ {
			qtail[cq.Indices[i]-lo] = cq.Values[i]
		}
		sc.qtail = qtail
		cq.Indices, cq.Values = cq.Indices[:k], cq.Values[:k]
	}
	qd := sc.qdims[:0]
	add := func(j uint32, qv float32) {
		if li, ok := ix.dimOf[j]; ok && len(ix.vlists[li].posts) > 0 {
			l := &ix.vlists[li]
			qd = append(qd, qdim{list: l, qv: qv, ub: math.Abs(float64(qv)) * float64(l.maxAbs)})
		}
	}
	if cq.Indices != nil {
		for i, j := range cq.Indices {
			add(j, cq.Values[i])
		}
	} else {
		for j, qv := range cq.Values {
			if qv != 0 {
				add(uint32(j), qv)
			}
		}
	}
	slices.SortFunc(qd, func(a, b qdim) int { return cmp.Compare(b.ub, a.ub) })
	rest := 0.0
	for _, x := range qd {
		rest += x.ub
	}

	// Pruning (MaxScore-style) works against a threshold theta, the floor:
	// no document scoring below it can be in the result.
	const slack = 1e-5 // float32 accumulation error
	dim := uint32(cq.Dim)
	// Checking each document's Dim is needed only when vectors of several
	// sizes share the index (an embedder change not yet rebuilt).
	mixed := len(ix.dimDocs) > 1
	theta := floor
	i := 0
	if qtail != nil && tailBlk != nil {
		// Every document of this Dim has a tail row. The head's lists are
		// short (hashed features): score them whole, then scan the rows,
		// where the head score known exactly lets most rows be skipped
		// after their first values (tailTopK).
		for _, x := range qd {
			for _, pv := range x.list.posts {
				d := pv.doc
				if w, bit := d/64, uint64(1)<<(d%64); seen[w]&bit == 0 {
					seen[w] |= bit
					touched = append(touched, d)
				}
				acc[d] += x.qv * pv.val
			}
		}
		sc.qdims = qd[:0]
		hits := ix.tailTopK(sc, tailBlk, qtail, k, theta, keep, touched)
		ix.putScratch(sc, touched)
		return hits
	}
	// Phase 1 scores whole lists while a document seen in none of them so
	// far could still reach theta; after that no new document can, and
	// only those already seen matter.
	for ; i < len(qd); i++ {
		if rest+slack < theta {
			break
		}
		l, qv := qd[i].list, qd[i].qv
		for _, pv := range l.posts {
			d := pv.doc
			// Signed features can sum to exactly zero, so membership is
			// tracked in a bitset rather than inferred from acc.
			if w, bit := d/64, uint64(1)<<(d%64); seen[w]&bit == 0 {
				seen[w] |= bit
				touched = append(touched, d)
			}
			acc[d] += qv * pv.val
		}
		rest -= qd[i].ub
	}
	// Phase 2 completes the scores of the documents that can still reach
	// theta. The others are left out of the candidates handed to topK, in
	// the order they were first seen: topK keeps the first of documents
	// tying the k-th best, and the candidates must meet it in the same order
	// whatever was pruned.
	pruned := i < len(qd)
	var cands []uint32
	if pruned {
		cands = sc.cands[:0]
		for _, d := range touched {
			if float64(acc[d])+rest+slack >= theta && (!mixed || ix.vdim[d] == dim) {
				cands = append(cands, d)
			}
		}
		cands = ix.complete(sc, cands, qd[i:], rest, theta)
	}
	sc.qdims = qd[:0]

	if blk := ix.dense[cq.Dim]; blk != nil {
		for slot, d := range blk.ords {
			row := Vector{Dim: blk.dim, Values: blk.vals[slot*blk.dim : (slot+1)*blk.dim]}
			seen[d/64] |= 1 << (d % 64)
			touched = append(touched, d)
			if pruned {
				cands = append(cands, d)
			}
			acc[d] = cq.Dot(row)
		}
	}
	var hits []Hit
	if pruned {
		hits = ix.topK(sc, cands, k, theta, 0, keep)
		sc.cands = cands[:0]
	} else {
		dimCheck := uint32(0)
		if mixed {
			dimCheck = dim
		}
		hits = ix.topK(sc, touched, k, theta, dimCheck, keep)
	}
	ix.putScratch(sc, touched)
	return hits
}

// complete adds the remaining query dimensions qd into the candidates'
// scores, dropping a candidate as soon as its bound falls below theta, and
// returns the survivors in their original order. rest is the sum of qd's
// bounds. A list much longer than the candidates is intersected by
// galloping search; otherwise one linear pass tests each posting against
// the seen bitset, which also updates documents already dropped (harmless:
// they are not returned).
func (ix *Index) complete(sc *scratch, cands []uint32, qd []qdim, rest, theta float64) []uint32 {
	const slack = 1e-5
	acc, seen := sc.acc, sc.seen
	// sorted mirrors cands in ordinal order once they are few enough for
	// galloping to pay off (sorting many would cost more than it saves).
	const few = 512
	var sorted []uint32
	for j, x := range qd {
		if j > 0 && len(cands) <= 4*few {
			keepIf := func(ds []uint32) []uint32 {
				n := 0
				for _, d := range ds {
					if float64(acc[d])+rest+slack >= theta {
						ds[n] = d
						n++
					}
				}
				return ds[:n]
			}
			cands = keepIf(cands)
			if sorted != nil {
				sorted = keepIf(sorted)
			}
		}
		if len(cands) == 0 {
			break
		}
		posts := x.list.posts
		if len(cands) <= few && len(cands)*8 < len(posts) {
			if sorted == nil {
				sorted = append(sc.sorted[:0], cands...)
				slices.Sort(sorted)
			}
			p := 0
			for _, d := range sorted {
				p = gallop(posts, p, d)
				if p == len(posts) {
					break
				}
				if posts[p].doc == d {
					acc[d] += x.qv * posts[p].val
				}
			}
		} else {
			for _, pv := range posts {
				if seen[pv.doc/64]&(1<<(pv.doc%64)) != 0 {
					acc[pv.doc] += x.qv * pv.val
				}
			}
		}
		rest -= x.ub
	}
	if sorted != nil {
		sc.sorted = sorted[:0]
	}
	return cands
}

// gallop returns the smallest index ≥ from with posts[index].doc ≥ target,
// or len(posts), by exponential then binary search: O(log gap) per step when
// intersecting a short sorted list with a long one.
func gallop(posts []vpost, from int, target uint32) int {
	lo, step := from, 1
	hi := from
	for hi < len(posts) && posts[hi].doc < target {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(posts))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if posts[m].doc < target {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// worse orders candidates: lower score first, then larger ID, so a min-heap
// on worse keeps the best k with ties broken by ascending ID.
func (ix *Index) worse(a, b cand) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if ix.idOrdered {
		return a.ord > b.ord
	}
	return ix.ids[a.ord] > ix.ids[b.ord]
}

// topK selects the best k touched documents with score ≥ floor (and vector
// Dim == dim when dim > 0), calling keep only for those that would enter the
// current top k.
func (ix *Index) topK(sc *scratch, touched []uint32, k int, floor float64, dim uint32, keep Filter) []Hit {
	h := sc.heap[:0]
	acc := sc.acc
	for _, d := range touched {
		c := cand{score: acc[d], ord: d}
		if float64(c.score) < floor {
			continue
		}
		// A document that cannot displace the k-th best stays out before
		// keep (a map lookup in the caller) is asked. A tie is broken by
		// ID here, as in the final order, so the top k does not depend on
		// the order documents were added in (a namespace loads in
		// parallel); documents are mostly added in ID order, so of
		// thousands of equal scores almost all fail on the ID compare.
		if len(h) == k && !ix.worse(h[0], c) {
			continue
		}
		if dim != 0 && ix.vdim[d] != dim {
			continue
		}
		if !ix.keeps(keep, d) {
			continue
		}
		if len(h) < k {
			h = append(h, c)
			ix.siftUp(h, len(h)-1)
		} else {
			h[0] = c
			ix.siftDown(h, 0)
		}
	}
	slices.SortFunc(h, func(a, b cand) int {
		switch {
		case ix.worse(b, a):
			return -1
		case ix.worse(a, b):
			return 1
		}
		return 0
	})
	hits := make([]Hit, len(h))
	for i, c := range h {
		hits[i] = Hit{ID: ix.ids[c.ord], Score: float64(c.score)}
	}
	sc.heap = h[:0]
	return hits
}

// normF64 is the L2 norm of xs in float64.
func normF64(xs []float32) float64 {
	var ss float64
	for _, x := range xs {
		ss += float64(x) * float64(x)
	}
	return math.Sqrt(ss)
}

func norm(xs []float32) float32 {
	var ss float64
	for _, x := range xs {
		ss += float64(x) * float64(x)
	}
	return float32(math.Sqrt(ss))
}

// tailTopK returns the top k documents of a tail block by head score (in
// acc, exact) plus tail dot product, ≥ floor, that keep accepts. While
// scanning it keeps the best k seen; a row whose values read so far (an
// eighth, then half of them), plus the bound |q_rest|·|row_rest| on the
// others, cannot beat the k-th best (or the floor) is skipped unread past
// that point (the first bound on the block's principal axes, tailrot.go).
// keep is asked, as Lexical's contract says, only for a row that would
// enter the current best k: the threshold is then the k-th best row kept,
// not the 2k-th best of any (as it was), and half as many rows are read
// past the first checkpoint on the peers workload, for a few dozen more
// calls of keep. The result is the same: the best k rows keep accepts, in
// the heap's total order (score, then ID).
func (ix *Index) tailTopK(sc *scratch, blk *denseBlock, qtail []float32, k int, floor float64, keep Filter, touched []uint32) []Hit {
	n := blk.dim
	// The query's coordinates on the block's axes and the norm of the
	// rest: the first checkpoint's side of the query (tailrot.go).
	c1, _ := tailCuts(n)
	tq := tailQuery{lead: append(sc.qlead[:0], make([]float32, c1)...)}
	sc.qlead = tq.lead
	tq.rest = blk.tailLead(qtail, tq.lead)
	tq.rotated = blk.axes != nil
	if tq.deep = blk.tailDeep(); tq.deep {
		tq.lead2 = append(sc.qlead2[:0], make([]float32, 2*c1)...)
		sc.qlead2 = tq.lead2
		tq.rest2, tq.rest3 = blk.tailLead2(qtail, tq.lead2)
		tq.deeper = blk.tailDeeper()
	}
	// The rows whose head scores are best are scored first: the heap
	// starts near its final threshold, so the scan skips more rows at its
	// checkpoints. The heap ends holding the same rows whatever the order
	// (its order is total), so the result is the same. Twice k of them:
	// with k, a filter that turns a few away left the heap short of k on
	// every query of the peers workload, its threshold at the floor until
	// the scan filled it.
	rows := len(blk.ords)
	seeds := ix.tailSeeds(sc, blk, touched, 2*min(k, maxSeedScan))
	h := ix.tailScan(blk, qtail, tq, sc.acc, seeds, 0, len(seeds), k, floor, keep, sc.heap[:0], nil)
	if others, ok := ix.touchedOnly(sc, blk, qtail, touched, seeds, h, k, floor); ok {
		// No row the head did not touch can enter: the touched rows the
		// seeds left are all there is to score.
		h = ix.tailScan(blk, qtail, tq, sc.acc, others, 0, len(others), k, floor, keep, h, nil)
		sc.others = others[:0]
		if touchedOnlyHook != nil {
			touchedOnlyHook()
		}
	} else if rows >= parallelTailRows && runtime.GOMAXPROCS(0) > 1 {
		// A long block is scanned in two halves at once, each keeping its
		// own best and passing over the seeds of its half: the union holds
		// the best of the whole. The second half starts with no heap, so
		// its floor is the seeds' k-th best when they filled one (a row
		// below it cannot be among the best k). keep is then called from
		// both at once.
		half := rows / 2
		split, _ := slices.BinarySearch(seeds, int32(half))
		floor2 := floor
		if len(h) == k {
			floor2 = max(floor, float64(h[0].score))
		}
		var h2 []cand
		var wg sync.WaitGroup
		wg.Go(func() {
			h2 = ix.tailScan(blk, qtail, tq, sc.acc, nil, half, rows, k, floor2, keep, sc.heap2[:0], seeds[split:])
		})
		h = ix.tailScan(blk, qtail, tq, sc.acc, nil, 0, half, k, floor, keep, h, seeds[:split])
		wg.Wait()
		h = append(h, h2...)
		sc.heap2 = h2[:0]
	} else {
		h = ix.tailScan(blk, qtail, tq, sc.acc, nil, 0, rows, k, floor, keep, h, seeds)
	}
	sc.seeds = seeds[:0]
	slices.SortFunc(h, func(a, b cand) int {
		switch {
		case ix.worse(b, a):
			return -1
		case ix.worse(a, b):
			return 1
		}
		return 0
	})
	hits := make([]Hit, min(k, len(h)))
	for i, c := range h[:len(hits)] {
		hits[i] = Hit{ID: ix.ids[c.ord], Score: float64(c.score)}
	}
	sc.heap = h[:0]
	return hits
}

// parallelTailRows is the tail block size from which tailTopK scans two
// halves concurrently: below it a goroutine costs more than it saves. A
// variable so tests can reach the parallel path on small blocks.
var parallelTailRows = 32_768

// tailSeeds returns the tail slots of up to size documents among touched
// with the best head scores (sc.acc), in ascending slot order, for
// tailTopK to score first. Only documents with a row in blk qualify. For
// more than maxSeedScan touched documents (a query of common words) it
// returns none: picking the best would cost more than it saves.
func (ix *Index) tailSeeds(sc *scratch, blk *denseBlock, touched []uint32, size int) []int32 {
	if len(touched) > maxSeedScan || !tailSeeding {
		return nil
	}
	dim := uint32(0)
	for vd, b := range ix.tails {
		if b == blk {
			dim = uint32(vd)
		}
	}
	acc, tailOf, vdim := sc.acc, ix.tailOf, ix.vdim
	h := sc.seedHeap[:0] // a min-heap on head score: the best size seen
	for _, d := range touched {
		if tailOf[d] < 0 || vdim[d] != dim {
			continue // no row in this block (another Dim)
		}
		c := cand{score: acc[d], ord: d}
		if len(h) < size {
			h = append(h, c)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if h[p].score <= h[i].score {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
		} else if c.score > h[0].score {
			h[0] = c
			for i := 0; ; {
				l, m := 2*i+1, i
				if l < len(h) && h[l].score < h[m].score {
					m = l
				}
				if r := l + 1; r < len(h) && h[r].score < h[m].score {
					m = r
				}
				if m == i {
					break
				}
				h[i], h[m] = h[m], h[i]
				i = m
			}
		}
	}
	seeds := sc.seeds[:0]
	for _, c := range h {
		seeds = append(seeds, tailOf[c.ord])
	}
	sc.seedHeap = h[:0]
	slices.Sort(seeds)
	return seeds
}

// maxSeedScan bounds the touched documents tailSeeds looks through.
const maxSeedScan = 8192

// touchedOnly returns the slots in blk of the touched documents that are
// not among seeds (already scored into h), when no other row of blk can
// enter the result; else false. A document the query's head did not touch
// has a head score of exactly 0 (acc), so its score is its tail's dot
// product with the query's, at most |q_tail|·blk.maxNorm; when that plus
// the accumulation slack is below the floor, or below the k-th best score
// the seeds gave (a full heap), such a row can neither pass the floor nor
// displace a kept one, whatever its ID. On the peers workload that holds
// for most queries whose tail is zero (no known word) and for those whose
// k-th best is above the bound (a tail part is at most √½ of a unit
// vector, so untouched rows score at most ½): then a few hundred or
// thousand rows are scanned instead of all of them. The order of the
// returned slots does not matter (the heap's order is total).
func (ix *Index) touchedOnly(sc *scratch, blk *denseBlock, qtail []float32, touched []uint32, seeds []int32, h []cand, k int, floor float64) ([]int32, bool) {
	if len(touched) > maxSeedScan || !tailSeeding || !tailTouchedOnly || !tailBounds {
		return nil, false // as tailSeeds: too many touched to be worth it
	}
	const slack = 1e-5
	theta := floor
	if len(h) == k {
		theta = max(theta, float64(h[0].score))
	}
	if float64(norm(qtail))*float64(blk.maxNorm)+slack >= theta {
		return nil, false
	}
	dim := uint32(0)
	for vd, b := range ix.tails {
		if b == blk {
			dim = uint32(vd)
		}
	}
	// The seeds' slots marked in a bitset over slots, cleared after.
	words := (len(blk.ords) + 63) / 64
	if len(sc.slotSeen) < words {
		sc.slotSeen = make([]uint64, words+words/4)
	}
	mark := sc.slotSeen
	for _, s := range seeds {
		mark[s/64] |= 1 << (s % 64)
	}
	others := sc.others[:0]
	tailOf, vdim := ix.tailOf, ix.vdim
	for _, d := range touched {
		s := tailOf[d]
		if s < 0 || vdim[d] != dim || mark[s/64]&(1<<(s%64)) != 0 {
			continue
		}
		others = append(others, s)
	}
	for _, s := range seeds {
		mark[s/64] = 0
	}
	return others, true
}

// tailTouchedOnly turns touchedOnly on; a variable so tests and benchmarks
// can compare the scan of the touched rows with the scan of all.
var tailTouchedOnly = true

// touchedOnlyHook, when set (tests), runs each time a scan took the
// touched rows alone.
var touchedOnlyHook func()

// tailBounds turns the checkpoint bounds of tailScan on; a variable so
// tests can compare the pruned scan with one that scores every row whole
// with the same arithmetic (an infinite query norm never skips a row).
var tailBounds = true

var inf32 = float32(math.Inf(1))

// tailWide turns on tailScan's written-out path for rows of 64 values; a
// variable so tests can check it against dotRow's, bit for bit.
var tailWide = true

// tailThird turns tailScan's third bound on the axes on (the second group
// of lead2); a variable so benchmarks can compare the scan without it.
var tailThird = true

// tailRowReads, when not nil (tests), counts the rows tailScan reads from
// their own values (past every bound on the axes).
var tailRowReads *atomic.Int64

// tailSeeding turns tailSeeds on; a variable so tests can compare the
// seeded scan with the plain one.
var tailSeeding = true

// tailScan scores the tail rows of slots [lo, hi) (head score from acc,
// read only) into h, a heap of at most size candidates ≥ floor, skipping
// rows at the checkpoints that cannot enter it (and, for rows of 64
// values, at a third one sixteen values in: blk.mid), and returns h. keep
// (may be nil) is asked only for a row that would enter h. With slots
// not nil it scores the rows slots[lo:hi] instead; skip, ascending, names
// rows already scored (into h) to pass over.
func (ix *Index) tailScan(blk *denseBlock, qtail []float32, tq tailQuery, acc []float32, slots []int32, lo, hi, size int, floor float64, keep Filter, h []cand, skip []int32) []cand {
	const slack = 1e-5
	n := blk.dim
	c1, c2 := tailCuts(n)
	q1, q2 := tq.rest, norm(qtail[c2:])
	theta := float32(floor)
	if len(h) == size {
		theta = max(theta, h[0].score)
	}
	// The first checkpoint is read for every row: with the usual eight
	// values it is multiplied out here, a call per row saved.
	var q8, l8, m8 [8]float32
	inline := c1 == len(q8)
	if inline {
		copy(q8[:], qtail)
		copy(l8[:], tq.lead)
	}
	// The second bound on the axes, for rows of eight-value leads, and the
	// third on the eight after (deeper): both groups of a row's lead2 are
	// one 64-byte run, so the third costs no read the second did not.
	deep := inline && tq.deep && tailBounds
	deeper := deep && tq.deeper && tailThird
	q3, q4 := tq.rest2, tq.rest3
	var n8 [8]float32
	if deep {
		copy(m8[:], tq.lead2)
		copy(n8[:], tq.lead2[8:])
	}
	rotated := tq.rotated
	// A row of 64 values (the word-vector tail) is read in runs of eight
	// past the first checkpoint, with a third bound after the first run.
	wide := inline && n == 64 && tailWide
	var qw [24]float32
	var qr [32]float32
	var qm float32
	if wide {
		copy(qw[:], qtail[8:32])
		copy(qr[:], qtail[32:64])
		qm = norm(qtail[16:])
	}
	if !tailBounds {
		q1, q2, qm = inf32, inf32, inf32
	}
	// The block's slices in locals: the heap appends below would otherwise
	// make the compiler reload them from blk for every row.
	ords, lead, rest, vals, mid := blk.ords, blk.lead, blk.rest, blk.vals, blk.mid
	lead2, rest2 := blk.lead2, blk.rest2
	for i := lo; i < hi; i++ {
		slot := i
		if slots != nil {
			slot = int(slots[i])
		} else if len(skip) > 0 && int32(slot) == skip[0] {
			skip = skip[1:]
			continue
		}
		d := ords[slot]
		// The first checkpoint on the block's axes; without axes its
		// partial sum is the score's own first part, as the lead is the
		// row's first values.
		var s float32
		if inline {
			r := lead[slot*8 : slot*8+8 : slot*8+8]
			s = acc[d] + ((l8[0]*r[0] + l8[1]*r[1]) + (l8[2]*r[2] + l8[3]*r[3])) + ((l8[4]*r[4] + l8[5]*r[5]) + (l8[6]*r[6] + l8[7]*r[7]))
		} else {
			s = acc[d] + dotRow(tq.lead, lead[slot*c1:(slot+1)*c1])
		}
		if s+q1*rest[2*slot]+slack < theta {
			continue
		}
		if deep {
			r := lead2[slot*16 : slot*16+16 : slot*16+16]
			s2 := s + ((m8[0]*r[0] + m8[1]*r[1]) + (m8[2]*r[2] + m8[3]*r[3])) + ((m8[4]*r[4] + m8[5]*r[5]) + (m8[6]*r[6] + m8[7]*r[7]))
			if s2+q3*rest2[2*slot]+slack < theta {
				continue
			}
			if deeper {
				s3 := s2 + ((n8[0]*r[8] + n8[1]*r[9]) + (n8[2]*r[10] + n8[3]*r[11])) + ((n8[4]*r[12] + n8[5]*r[13]) + (n8[6]*r[14] + n8[7]*r[15]))
				if s3+q4*rest2[2*slot+1]+slack < theta {
					continue
				}
			}
		}
		row := vals[slot*n : (slot+1)*n : (slot+1)*n]
		if tailRowReads != nil {
			tailRowReads.Add(1)
		}
		if rotated {
			// The score itself, from the row's own values.
			if inline {
				r := row[:8:8]
				s = acc[d] + ((q8[0]*r[0] + q8[1]*r[1]) + (q8[2]*r[2] + q8[3]*r[3])) + ((q8[4]*r[4] + q8[5]*r[5]) + (q8[6]*r[6] + q8[7]*r[7]))
			} else {
				s = acc[d] + dotRow(qtail[:c1], row[:c1])
			}
		}
		if wide {
			// dotRow over the middle run and the rest, written out:
			// the same multiply-adds into the same eight accumulators
			// in the same order, so the same bits, with one more bound
			// eight values in (a row's second cache line is left
			// unread when it fails) and no bounds checks or calls.
			m := row[8:32:32]
			var s0, s1, s2, s3, s4, s5, s6, s7 float32
			s0 += qw[0] * m[0]
			s1 += qw[1] * m[1]
			s2 += qw[2] * m[2]
			s3 += qw[3] * m[3]
			s4 += qw[4] * m[4]
			s5 += qw[5] * m[5]
			s6 += qw[6] * m[6]
			s7 += qw[7] * m[7]
			if s+(((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)))+qm*mid[slot]+slack < theta {
				continue
			}
			s0 += qw[8] * m[8]
			s1 += qw[9] * m[9]
			s2 += qw[10] * m[10]
			s3 += qw[11] * m[11]
			s4 += qw[12] * m[12]
			s5 += qw[13] * m[13]
			s6 += qw[14] * m[14]
			s7 += qw[15] * m[15]
			s0 += qw[16] * m[16]
			s1 += qw[17] * m[17]
			s2 += qw[18] * m[18]
			s3 += qw[19] * m[19]
			s4 += qw[20] * m[20]
			s5 += qw[21] * m[21]
			s6 += qw[22] * m[22]
			s7 += qw[23] * m[23]
			s += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
			if s+q2*rest[2*slot+1]+slack < theta {
				continue
			}
			t := row[32:64:64]
			s0, s1, s2, s3, s4, s5, s6, s7 = 0, 0, 0, 0, 0, 0, 0, 0
			for j := 0; j < 32; j += 8 {
				x, y := qr[j:j+8:j+8], t[j:j+8:j+8]
				s0 += x[0] * y[0]
				s1 += x[1] * y[1]
				s2 += x[2] * y[2]
				s3 += x[3] * y[3]
				s4 += x[4] * y[4]
				s5 += x[5] * y[5]
				s6 += x[6] * y[6]
				s7 += x[7] * y[7]
			}
			s += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
		} else {
			s += dotRow(qtail[c1:c2], row[c1:c2])
			if s+q2*rest[2*slot+1]+slack < theta {
				continue
			}
			s += dotRow(qtail[c2:], row[c2:])
		}
		if s < float32(floor) {
			continue
		}
		c := cand{score: s, ord: d}
		if len(h) == size && !ix.worse(h[0], c) {
			continue
		}
		if !ix.keeps(keep, d) {
			continue
		}
		if len(h) < size {
			h = append(h, c)
			ix.siftUp(h, len(h)-1)
		} else {
			h[0] = c
			ix.siftDown(h, 0)
		}
		if len(h) == size {
			theta = max(float32(floor), h[0].score)
		}
	}
	return h
}

func (ix *Index) siftUp(h []cand, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !ix.worse(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (ix *Index) siftDown(h []cand, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && ix.worse(h[r], h[l]) {
			m = r
		}
		if !ix.worse(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// tailQuery is the query's side of a tail scan's first checkpoint: its
// first coordinates on the block's axes and the norm of the others
// (tailLead), and whether those axes are a rotation (else lead is the
// query's own first values).
type tailQuery struct {
	lead    []float32
	rest    float32
	rotated bool
	// deep: the block has twice as many axes as lead holds (or three
	// times: deeper), and lead2 holds the query's next coordinates on them
	// (two groups of lead's size, the second zero unless deeper), rest2
	// and rest3 the norms past the first and the second group.
	deep, deeper bool
	lead2        []float32
	rest2, rest3 float32
}

// ExplainLexical returns the BM25 contribution of each query term found in
// document id, largest first (ties by term). It is meant for the handful of
// packed results, so it looks each term up by binary search.
func (ix *Index) ExplainLexical(id string, terms []string) []TermScore {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ord, ok := ix.ordOf[id]
	if !ok {
		return nil
	}
	p := ix.bm25()
	var out []TermScore
	for _, tid := range ix.distinctTermIDs(terms, nil) {
		pl := &ix.post[tid]
		i, found := slices.BinarySearch(pl.docs, ord)
		if !found {
			continue
		}
		w := p.weight(p.idf(len(pl.docs)), pl.tfs[i], ix.docLen[ord])
		out = append(out, TermScore{Term: ix.terms[tid], Score: float64(w)})
	}
	slices.SortFunc(out, func(a, b TermScore) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Term, b.Term)
	})
	return out
}
