package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Reconciliation thresholds.
const (
	// nearDuplicate is the cosine at or above which a restatement under
	// another subject or key reinforces the existing memory.
	nearDuplicate = 0.92
	// weakEvidence is the confidence below which a conflicting value
	// contests the current one instead of superseding it.
	weakEvidence = 0.6
)

// writeBatch collects what one transaction changed, to apply to the index
// once it commits.
type writeBatch struct {
	created []*memory.Version // new versions, in write order
	updated []*memory.Version // versions whose state moved
	// bySig finds facts created in this batch by wording signature, so
	// near-duplicates inside one batch are caught too.
	bySig map[string][]*memory.Version
	// pastOf names, for a version a past-tense candidate wrote ("gave up
	// on Mint") after pastFirst moved it, the episode that said so: the
	// new value of the same slot from that same statement ("I'm on Fedora
	// these days") supersedes it.
	pastOf map[string]string
}

func (w *writeBatch) reset() {
	w.created, w.updated = w.created[:0], w.updated[:0]
	w.bySig, w.pastOf = nil, nil
}

// notePast records that the past-tense candidate c wrote v, when pastFirst
// moved c before the current value of its statement.
func (w *writeBatch) notePast(v *memory.Version, c *candidate) {
	if !c.pastMoved {
		return
	}
	if w.pastOf == nil {
		w.pastOf = make(map[string]string)
	}
	w.pastOf[v.ID] = c.episodeID
}

// noteFact makes a fact created in this batch findable by nearDuplicate.
func (w *writeBatch) noteFact(v *memory.Version, sig string) {
	if v.Kind == memory.KindEpisodic || sig == "" {
		return
	}
	if w.bySig == nil {
		w.bySig = make(map[string][]*memory.Version)
	}
	w.bySig[sig] = append(w.bySig[sig], v)
}

// ingest embeds, reconciles and writes a batch of events in one transaction,
// then applies the committed changes to the namespace index.
func (e *Engine) ingest(ctx context.Context, ns string, evs []*pendingEvent) ([]Outcome, error) {
	return e.ingestThen(ctx, ns, evs, nil)
}

// ingestThen is ingest with then, if not nil, run last in its transaction.
func (e *Engine) ingestThen(ctx context.Context, ns string, evs []*pendingEvent, then func(context.Context, memory.Executor) error) ([]Outcome, error) {
	if err := e.embedPending(ctx, evs); err != nil {
		return nil, err
	}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if needsSignatures(evs) {
		st.PrepareSignatures()
	}
	now := e.clock.Now()
	var (
		w    writeBatch
		outs []Outcome
		docs []search.Doc
	)
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		w.reset()
		outs = outs[:0]
		if err := e.storeEpisodes(ctx, tx, ns, evs); err != nil {
			return err
		}
		if err := prefetchSlots(ctx, tx, ns, evs); err != nil {
			return err
		}
		var adms []*memory.Admission
		for _, pe := range evs {
			if pe.done {
				continue
			}
			if pe.dupOf != "" {
				out := Outcome{EpisodeID: pe.dupOf, Decision: memory.AdmitReject, Operation: memory.OpNoop,
					Reasons: []string{"duplicate_event"}, Content: pe.ep.Content}
				outs = append(outs, out)
				adms = append(adms, &memory.Admission{
					ID: ids.New(ids.Admission), Namespace: ns, EpisodeID: pe.dupOf, Decision: out.Decision,
					Reasons: out.Reasons, Operation: out.Operation, Content: pe.ep.Content, Extractor: "episode", CreatedAt: now,
				})
				continue
			}
			var (
				lent    []string
				standIn bool // a new note of the episode's very text serves as its memory
			)
			cands, err := pastFirst(pe.cands, func(c *candidate) (bool, error) { return liveValue(ctx, tx, ns, c) })
			if err != nil {
				return err
			}
			for _, c := range cands {
				e.componentSlot(st, c)
				out, err := e.reconcile(ctx, tx, st, &w, c, now)
				if err != nil {
					return err
				}
				outs = append(outs, out)
				adms = append(adms, admissionOf(ns, c, out, now))
				if out.Decision == memory.AdmitAccept && out.VersionID != "" && !index.IsNoteKey(c.Key) {
					lent = append(lent, index.KeyWords(c.Key))
				}
				standIn = len(pe.cands) == 1 && standsIn(pe, c, out)
			}
			if standIn {
				// One admission says both: the note was kept, and it is
				// the episode's memory (which also marks the episode's
				// extraction done, see marksExtraction).
				a := adms[len(adms)-1]
				a.Reasons = append(slices.Clip(a.Reasons), reasonStandsIn)
				a.Models = pe.models
			}
			if pe.epStatus == memory.StatusQuarantined {
				outs = append(outs, Outcome{
					EpisodeID: pe.ep.ID, Decision: memory.AdmitQuarantine,
					Reasons: append([]string(nil), pe.epReason...), Content: pe.ep.Content,
				})
			}
			if pe.indexed && !standIn {
				v, err := e.writeEpisodeMemory(ctx, tx, pe, lent, now)
				if err != nil {
					return err
				}
				w.created = append(w.created, v)
				pe.epVersion = v
			}
			if !standIn {
				adms = append(adms, episodeAdmission(ns, pe, now))
			}
			// A fact this statement says changed, in a slot its own
			// candidates did not reach, is contested (contest.go).
			couts, cadms, err := e.contestChanged(ctx, tx, st, &w, pe, outs, now)
			if err != nil {
				return err
			}
			outs, adms = append(outs, couts...), append(adms, cadms...)
		}
		if err := e.materialize(ctx, tx, &w, now); err != nil {
			return err
		}
		if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms}); err != nil {
			return err
		}
		if then != nil {
			if err := then(ctx, tx); err != nil {
				return err
			}
		}
		// Build the search documents before committing, so nothing that
		// commits can fail to reach the index.
		docs = docs[:0]
		for _, v := range w.created {
			doc, err := e.index.Doc(v)
			if err != nil {
				return err
			}
			docs = append(docs, doc)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, v := range w.created {
		st.Put(v, docs[i])
	}
	for _, v := range w.updated {
		st.UpdateState(v)
	}
	return outs, nil
}

// prefetchSlots looks up, where the store can at once (PostgreSQL), every
// slot the batch's admitted candidates may write, so reconciling them
// costs no round trip each.
func prefetchSlots(ctx context.Context, tx memory.Executor, ns string, evs []*pendingEvent) error {
	pf, ok := tx.(memory.SlotPrefetcher)
	if !ok {
		return nil
	}
	var slots []memory.FindMemoryParams
	for _, pe := range evs {
		if pe.done || pe.dupOf != "" {
			continue
		}
		for _, c := range pe.cands {
			if c.decision == memory.AdmitAccept {
				slots = append(slots, memory.FindMemoryParams{Namespace: ns, Scope: c.scope, Subject: c.Subject, Key: c.Key})
			}
		}
	}
	return pf.PrefetchSlots(ctx, ns, slots)
}

// storeEpisodes inserts the episodes of a batch that are not stored yet
// (see newEpisodes).
func (e *Engine) storeEpisodes(ctx context.Context, tx memory.Executor, ns string, evs []*pendingEvent) error {
	episodes, err := e.newEpisodes(ctx, tx, ns, evs)
	if err != nil || len(episodes) == 0 {
		return err
	}
	return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: episodes})
}

// newEpisodes returns the episodes of a batch to insert, leaving out
// events already stored: a capture retried after a lost acknowledgement
// (same kind, speaker, scope, time and content) must not count twice, or
// its facts would be reinforced by their own echo.
func (e *Engine) newEpisodes(ctx context.Context, tx memory.Executor, ns string, evs []*pendingEvent) ([]*memory.Episode, error) {
	out := make([]*memory.Episode, 0, len(evs))
	inBatch := make(map[string][]*memory.Episode)
	stored, err := matchEpisodes(ctx, tx, ns, evs)
	if err != nil {
		return nil, err
	}
	for _, pe := range evs {
		pe.dupOf, pe.done = "", false
		if pe.stored {
			// Every extraction logs an admission for its episode in the
			// same transaction: finding one means a retried job already
			// did this work, and doing it again would reinforce facts
			// with their own evidence.
			done, err := extracted(ctx, tx, ns, pe.ep.ID)
			if err != nil {
				return nil, err
			}
			pe.done = done
			continue
		}
		if pe.dedupe {
			for _, prev := range inBatch[pe.ep.ContentHash] {
				if sameEvent(prev, pe.ep) {
					pe.dupOf = prev.ID
					break
				}
			}
			if pe.dupOf == "" {
				matches, ok := stored[pe.ep.ContentHash]
				if !ok {
					var err error
					matches, err = tx.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, ContentHash: pe.ep.ContentHash, OccurredAt: pe.ep.OccurredAt})
					if err != nil {
						return nil, err
					}
				}
				for _, x := range matches {
					if sameEvent(x, pe.ep) {
						pe.dupOf = x.ID
						break
					}
				}
			}
		}
		if pe.dupOf == "" {
			inBatch[pe.ep.ContentHash] = append(inBatch[pe.ep.ContentHash], pe.ep)
			out = append(out, pe.ep)
		}
	}
	return out, nil
}

// matchEpisodes looks up, where the store can in one query (PostgreSQL,
// memory.EpisodeMatcher), the stored episodes that a batch's new events
// may repeat, by content hash: a group of captures then costs one round
// trip for its retry check instead of one per event. It returns nil when
// the store cannot; newEpisodes then asks per event. Every event looked
// up has an entry, empty when nothing matched.
func matchEpisodes(ctx context.Context, tx memory.Executor, ns string, evs []*pendingEvent) (map[string][]*memory.Episode, error) {
	m, ok := tx.(memory.EpisodeMatcher)
	if !ok {
		return nil, nil
	}
	var keys []memory.EpisodeKey
	for _, pe := range evs {
		if !pe.stored && pe.dedupe {
			keys = append(keys, memory.EpisodeKey{ContentHash: pe.ep.ContentHash, OccurredAt: pe.ep.OccurredAt})
		}
	}
	if len(keys) < 2 {
		return nil, nil // one event: ListEpisodes is the same round trip
	}
	found, err := m.MatchEpisodes(ctx, ns, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]*memory.Episode, len(keys))
	for _, k := range keys {
		out[k.ContentHash] = nil
	}
	for _, ep := range found {
		out[ep.ContentHash] = append(out[ep.ContentHash], ep)
	}
	return out, nil
}

// extracted reports whether an episode's extraction has committed.
func extracted(ctx context.Context, tx memory.AdmissionLog, ns, episodeID string) (bool, error) {
	adms, err := tx.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, EpisodeID: episodeID})
	if err != nil {
		return false, err
	}
	for _, a := range adms {
		if marksExtraction(a) {
			return true, nil
		}
	}
	return false, nil
}

// reasonStandsIn is the admission reason of a note that serves as its
// episode's memory (standsIn).
const reasonStandsIn = "stands_in_for_episode"

// marksExtraction reports whether an admission says its episode's
// extraction committed: every extraction logs one for the episode itself
// (extractor "episode", no operation), or, when a new note of its very
// text stands in for it, the note's admission says so instead.
func marksExtraction(a *memory.Admission) bool {
	return a.Extractor == "episode" && a.Operation == "" ||
		a.Extractor == noteExtractor && slices.Contains(a.Reasons, reasonStandsIn)
}

func sameEvent(a, b *memory.Episode) bool {
	return a.ContentHash == b.ContentHash && a.Kind == b.Kind && a.Speaker == b.Speaker &&
		a.Scope == b.Scope && a.OccurredAt.Equal(b.OccurredAt)
}

// embedPending embeds every searchable episode and admitted candidate of a
// batch in one call to the embedder. Each distinct text is embedded once:
// a remembered statement kept as a note has its episode's very text, and
// embedding it twice cost a second pass of the embedder (or a second
// provider input) for the same vector.
func (e *Engine) embedPending(ctx context.Context, evs []*pendingEvent) error {
	var (
		texts   []string
		targets [][]*search.Vector // per text, every vector it fills
		at      map[string]int     // text → its place in texts
	)
	want := func(text string, dst *search.Vector) {
		if i, ok := at[text]; ok {
			targets[i] = append(targets[i], dst)
			return
		}
		if at == nil {
			at = make(map[string]int)
		}
		at[text] = len(texts)
		texts = append(texts, text)
		targets = append(targets, []*search.Vector{dst})
	}
	for _, pe := range evs {
		if pe.indexed {
			want(pe.ep.Content, &pe.vec)
		}
		for _, c := range pe.cands {
			if c.decision == memory.AdmitAccept {
				want(c.Content, &c.vec)
				c.sig = index.Signature(e.analyzer, c.Content)
			}
		}
	}
	if len(texts) == 0 {
		return nil
	}
	vecs, err := e.embedder.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("embed: %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, ts := range targets {
		// As stored (EncodeCompact): what this write compares is what a
		// later one reads back.
		v := search.Quantize(vecs[i])
		for _, t := range ts {
			*t = v
		}
	}
	return nil
}

// standsIn reports whether the note a remember just created holds its
// episode's very text, so that one memory serves as both: an episodic
// memory of the same words, vector and time beside it would be a second
// copy of one statement for every channel to find (and for the pack to
// fold back into one), and a second memory, version, admission and
// change-log row on disk. Only a new slot qualifies (ADD): a note that
// reinforces or replaces an earlier one is another statement's memory, so
// the episode gets its own as before; and if the note is later replaced,
// superseding it writes the episode's memory then (see materialize).
func standsIn(pe *pendingEvent, c *candidate, out Outcome) bool {
	return c.extractor == noteExtractor && out.Decision == memory.AdmitAccept &&
		out.Operation == memory.OpAdd && out.Version != nil && out.Version.Seq == 1 &&
		pe.epStatus == memory.StatusActive && out.Version.Content == pe.ep.Content
}

// materialize writes the episodic memory of each episode whose note stood
// in for it (standsIn) and has just left the live set in this write: the
// statement was said and stays findable as said, as it would have been
// had it had its own memory from the start. An episode that has one
// already (written before notes stood in, or by an earlier supersession)
// is left alone.
func (e *Engine) materialize(ctx context.Context, tx memory.Executor, w *writeBatch, now time.Time) error {
	for _, v := range slices.Clone(w.updated) {
		if v.Kind == memory.KindEpisodic || v.Provenance.Extractor != noteExtractor || v.Seq != 1 ||
			v.Status.Live() || len(v.EvidenceEpisodeIDs) == 0 {
			continue
		}
		ep, err := tx.GetEpisode(ctx, memory.GetParams{Namespace: v.Namespace, ID: v.EvidenceEpisodeIDs[0]})
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if ep.Content != v.Content {
			continue
		}
		_, err = tx.FindMemory(ctx, memory.FindMemoryParams{Namespace: ep.Namespace, Scope: ep.Scope,
			Subject: strings.ToLower(ep.Speaker), Key: "episode:" + ep.ID})
		if err == nil {
			continue
		}
		if !errors.Is(err, memory.ErrNotFound) {
			return err
		}
		pe := pendingOf(ep)
		if !pe.indexed || pe.epStatus != memory.StatusActive {
			continue
		}
		// The note's vector is the episode's: the same text, embedded
		// once (embedPending). Its history is read without embeddings.
		full, err := tx.GetVersion(ctx, memory.GetParams{Namespace: v.Namespace, ID: v.ID})
		if err != nil {
			return err
		}
		ev, err := e.episodeMemory(ctx, tx, pe, full.Embedding, []string{index.KeyWords(v.Key)}, now)
		if err != nil {
			return err
		}
		w.created = append(w.created, ev)
	}
	return nil
}

// writeEpisodeMemory makes an episode searchable as an episodic memory. It
// borrows the keys of the facts extracted from it, so a question phrased
// like a key ("which editor...") finds the raw words too.
func (e *Engine) writeEpisodeMemory(ctx context.Context, tx memory.Executor, pe *pendingEvent, lent []string, now time.Time) (*memory.Version, error) {
	return e.episodeMemory(ctx, tx, pe, pe.vec.EncodeCompact(), lent, now)
}

// episodeMemory is writeEpisodeMemory with the episode's encoded vector.
func (e *Engine) episodeMemory(ctx context.Context, tx memory.Executor, pe *pendingEvent, vec []byte, lent []string, now time.Time) (*memory.Version, error) {
	ep := pe.ep
	m := &memory.Memory{
		ID: ids.New(ids.Memory), Namespace: ep.Namespace, Scope: ep.Scope, Kind: memory.KindEpisodic,
		Subject: strings.ToLower(ep.Speaker), Key: "episode:" + ep.ID, CreatedAt: now, UpdatedAt: now,
	}
	// The keys lent by its facts, not the speaker (see searchText).
	search := strings.Join(lent, " ")
	v := &memory.Version{
		ID: ids.New(ids.Version), MemoryID: m.ID, Namespace: ep.Namespace, Seq: 1, Scope: ep.Scope,
		Kind: memory.KindEpisodic, Type: memory.TypeEvent, Subject: m.Subject, Key: m.Key,
		Content: ep.Content, Criticality: memory.CriticalityNormal,
		Confidence: 1, Usefulness: memory.NeutralUsefulness, Status: pe.epStatus, Operation: memory.OpAdd,
		ObservedAt: ep.OccurredAt, RecordedAt: now, ValidFrom: ep.OccurredAt, UpdatedAt: now,
		EvidenceEpisodeIDs: []string{ep.ID},
		Provenance: memory.Provenance{
			Extractor: "episode", Embedder: e.embedder.Name(), EmbedderDim: e.embedder.Dim(), Source: "episode",
		},
		Tokens:     e.counter.Count(ep.Content),
		SearchText: search,
		Embedding:  vec,
	}
	v.Trust = trustOf(v, now)
	if err := createSlot(ctx, tx, m, v); err != nil {
		return nil, err
	}
	return v, nil
}

// createSlot writes a new memory and its first version: in one step where
// the store can (memory.SlotCreator: one round trip on PostgreSQL instead
// of three), else as the two writes.
func createSlot(ctx context.Context, tx memory.Executor, m *memory.Memory, v *memory.Version) error {
	// Ingest ends its transaction on any error: a write whose conflict
	// surfaces at the next statement or the commit is as good as one that
	// answers at once.
	if q, ok := tx.(memory.SlotQueuer); ok {
		return q.QueueSlot(ctx, m, v)
	}
	if sc, ok := tx.(memory.SlotCreator); ok {
		return sc.CreateSlot(ctx, m, v)
	}
	if err := tx.CreateMemory(ctx, m); err != nil {
		return err
	}
	return tx.CreateVersion(ctx, v)
}

// reconcile decides ADD, REINFORCE, SUPERSEDE, CONTEST or NOOP for one
// candidate against its slot and its semantic neighbours, and writes it.
func (e *Engine) reconcile(ctx context.Context, tx memory.Executor, st *nsState, w *writeBatch, c *candidate, now time.Time) (Outcome, error) {
	out := Outcome{EpisodeID: c.episodeID, Decision: c.decision, Reasons: append([]string(nil), c.reasons...), Content: c.Content}
	if c.decision != memory.AdmitAccept {
		return out, nil
	}
	slot := memory.FindMemoryParams{Namespace: st.Name(), Scope: c.scope, Subject: c.Subject, Key: c.Key}
	head, vs, err := readSlot(ctx, tx, slot)
	if errors.Is(err, memory.ErrNotFound) {
		return e.reconcileNewSlot(ctx, tx, st, w, c, now, out)
	}
	if err != nil {
		return out, err
	}
	m, live, nextSeq := head.Memory, head.Live, head.NextSeq
	sameLive := findValue(live, c)
	if vs == nil && needsHistory(c, live, sameLive) {
		// The head was read alone (memory.SlotHeadReader) and this
		// candidate is weighed against the slot's past values too.
		if vs, err = tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: st.Name(), MemoryID: m.ID, WithoutEmbeddings: true}); err != nil {
			return out, err
		}
		live = liveOf(vs)
		sameLive = findValue(live, c)
	}
	var history []*memory.Version
	for _, v := range vs {
		if v.Status.History() {
			history = append(history, v)
		}
	}
	sameHistory := findValue(history, c)

	switch c.Cue {
	case extract.CueNegation:
		// "I no longer live in Lisbon": the value ends; nothing replaces it.
		ended, late := 0, 0
		for _, v := range live {
			if c.Value != "" && !sameValue(v.Value, c.Value) {
				continue
			}
			if c.observedAt.Before(v.ObservedAt) {
				// Older than the statement it would end: that newer
				// statement stands.
				late++
				continue
			}
			v.Status, v.ValidTo = memory.StatusExpired, timePtr(c.observedAt)
			if err := e.touch(ctx, tx, w, v, c, now); err != nil {
				return out, err
			}
			out.MemoryID, out.VersionID, out.Version = v.MemoryID, v.ID, v
			ended++
		}
		if ended == 0 {
			out.Operation = memory.OpNoop
			if late > 0 {
				out.Reasons = append(out.Reasons, "late_evidence")
			} else {
				out.Reasons = append(out.Reasons, "nothing_to_end")
			}
			return out, nil
		}
		out.Operation = memory.OpSupersede
		out.Reasons = append(out.Reasons, "value_ended")
		return out, nil

	case extract.CuePast:
		// "I used to live in Paris": history, never the current value.
		if sameLive != nil && c.observedAt.Before(sameLive.ObservedAt) {
			out.Operation = memory.OpNoop
			out.Reasons = append(out.Reasons, "late_evidence")
			return out, nil
		}
		if sameLive != nil {
			sameLive.Status, sameLive.ValidTo = memory.StatusExpired, timePtr(c.observedAt)
			if err := e.touch(ctx, tx, w, sameLive, c, now); err != nil {
				return out, err
			}
			out.Operation, out.MemoryID, out.VersionID, out.Version = memory.OpSupersede, m.ID, sameLive.ID, sameLive
			out.Reasons = append(out.Reasons, "value_ended")
			return out, nil
		}
		if sameHistory != nil {
			return e.reinforce(ctx, tx, w, sameHistory, c, now, out, "history_restated")
		}
		v := e.newVersion(m, nextSeq, c, now)
		v.Status, v.Operation = memory.StatusExpired, memory.OpAdd
		v.ValidTo = timePtr(c.observedAt)
		if first := earliest(live); first != nil && !c.pastMoved {
			v.Status, v.SupersededBy = memory.StatusSuperseded, first.ID
			if first.ValidFrom.Before(*v.ValidTo) {
				v.ValidTo = timePtr(first.ValidFrom)
			}
		}
		if !v.ValidTo.After(v.ValidFrom) {
			// Said now about the past: we do not know when it began.
			v.ValidFrom = time.Time{}
		}
		out.Reasons = append(out.Reasons, "history")
		w.notePast(v, c)
		return e.add(ctx, tx, w, m, v, c, out)
	}

	if sameLive != nil {
		if sameLive.Status == memory.StatusContested && !c.Hedged && c.Confidence >= weakEvidence {
			// A confident restatement settles a contest: this value
			// stands, the values it competed with become history.
			sameLive.Status = memory.StatusActive
			for _, old := range live {
				if old.ID == sameLive.ID {
					continue
				}
				old.Status, old.SupersededBy = memory.StatusSuperseded, sameLive.ID
				if old.ValidTo == nil {
					old.ValidTo = timePtr(c.validFrom)
				}
				if err := e.touch(ctx, tx, w, old, nil, now); err != nil {
					return out, err
				}
			}
			return e.reinforce(ctx, tx, w, sameLive, c, now, out, "contest_resolved")
		}
		return e.reinforce(ctx, tx, w, sameLive, c, now, out, "same_value")
	}
	latest := latestObserved(live)
	if latest == nil {
		// Every earlier value has ended; this one starts the slot again.
		if sameHistory != nil && !c.observedAt.After(sameHistory.ObservedAt) {
			return e.reinforce(ctx, tx, w, sameHistory, c, now, out, "history_restated")
		}
		v := e.newVersion(m, nextSeq, c, now)
		// "I'm on Fedora these days, gave up on Mint": the value the
		// same statement put in the past is the one this replaces.
		replaced, err := e.supersedePast(ctx, tx, w, v, c, now)
		if err != nil {
			return out, err
		}
		if !replaced {
			out.Reasons = append(out.Reasons, "slot_reopened")
			return e.add(ctx, tx, w, m, v, c, out)
		}
		v.Operation = memory.OpSupersede
		out.Reasons = append(out.Reasons, "newer_value")
		res, err := e.add(ctx, tx, w, m, v, c, out)
		res.Operation = memory.OpSupersede
		return res, err
	}
	if c.observedAt.Before(latest.ObservedAt) {
		// Out-of-order evidence: an older observation arriving late
		// becomes history under the value that followed it.
		if sameHistory != nil {
			return e.reinforce(ctx, tx, w, sameHistory, c, now, out, "late_evidence")
		}
		next := nextAfter(vs, c.observedAt)
		v := e.newVersion(m, nextSeq, c, now)
		v.Status, v.SupersededBy = memory.StatusSuperseded, next.ID
		v.ValidTo = timePtr(next.ValidFrom)
		out.Reasons = append(out.Reasons, "out_of_order", "kept_as_history")
		return e.add(ctx, tx, w, m, v, c, out)
	}
	if c.Hedged || c.Confidence < weakEvidence {
		// Weak evidence against a current value: keep both, the weak one
		// flagged and ranked below; a settled value stays settled, a
		// weak one becomes contested too.
		v := e.newVersion(m, nextSeq, c, now)
		v.Status, v.Operation = memory.StatusContested, memory.OpContest
		for _, old := range live {
			if old.Status != memory.StatusContested && old.Confidence < weakEvidence {
				old.Status = memory.StatusContested
				if err := e.touch(ctx, tx, w, old, nil, now); err != nil {
					return out, err
				}
			}
		}
		out.Reasons = append(out.Reasons, "weak_evidence")
		res, err := e.add(ctx, tx, w, m, v, c, out)
		res.Operation = memory.OpContest
		return res, err
	}
	// A newer, confident value supersedes every live one.
	v := e.newVersion(m, nextSeq, c, now)
	v.Operation = memory.OpSupersede
	for _, old := range live {
		old.Status, old.SupersededBy = memory.StatusSuperseded, v.ID
		if old.ValidTo == nil || old.ValidTo.After(v.ValidFrom) {
			old.ValidTo = timePtr(v.ValidFrom)
		}
		if err := e.touch(ctx, tx, w, old, nil, now); err != nil {
			return out, err
		}
	}
	if _, err := e.supersedePast(ctx, tx, w, v, c, now); err != nil {
		return out, err
	}
	if c.Cue == extract.CueCorrection {
		out.Reasons = append(out.Reasons, "correction")
	} else {
		out.Reasons = append(out.Reasons, "newer_value")
	}
	res, err := e.add(ctx, tx, w, m, v, c, out)
	res.Operation = memory.OpSupersede
	return res, err
}

// supersedePast marks superseded by v the past values of its slot that
// the same statement wrote first (see pastFirst), and reports whether
// there was one.
func (e *Engine) supersedePast(ctx context.Context, tx memory.Executor, w *writeBatch, v *memory.Version, c *candidate, now time.Time) (bool, error) {
	if len(w.pastOf) == 0 {
		return false, nil
	}
	replaced := false
	for _, old := range slices.Clone(w.created) {
		if old.MemoryID != v.MemoryID || old.Status != memory.StatusExpired || old.SupersededBy != "" || w.pastOf[old.ID] != c.episodeID {
			continue
		}
		old.Status, old.SupersededBy = memory.StatusSuperseded, v.ID
		if err := e.touch(ctx, tx, w, old, nil, now); err != nil {
			return false, err
		}
		replaced = true
	}
	return replaced, nil
}

// pastFirst orders an event's candidates so that a past value the slot
// does not hold as current comes before a current value of the same slot:
// "I'm on Fedora these days, gave up on Mint" records Mint first, and
// Fedora supersedes it (v1 Mint, v2 Fedora), rather than a history
// written after the value that replaced it ("v2 superseded by v1"). A past
// value that is live (live reports it) keeps its place: the new value
// supersedes it, as before. The order is otherwise kept; cands is returned
// as is when nothing moves.
func pastFirst(cands []*candidate, live func(*candidate) (bool, error)) ([]*candidate, error) {
	late := false
	for i, c := range cands {
		if c.Cue == extract.CuePast {
			for _, d := range cands[:i] {
				late = late || d.Cue != extract.CuePast && sameSlot(c, d)
			}
		}
	}
	if !late {
		return cands, nil
	}
	moved := make(map[*candidate]bool)
	out := make([]*candidate, 0, len(cands))
	for i, c := range cands {
		if moved[c] {
			continue
		}
		if c.Cue != extract.CuePast {
			for _, d := range cands[i+1:] {
				if d.Cue != extract.CuePast || moved[d] || !sameSlot(c, d) {
					continue
				}
				held, err := live(d)
				if err != nil {
					return nil, err
				}
				if !held {
					d.pastMoved = true
					out = append(out, d)
					moved[d] = true
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// liveValue reports whether c's slot holds c's value as a live version.
func liveValue(ctx context.Context, tx memory.Executor, ns string, c *candidate) (bool, error) {
	head, _, err := readSlot(ctx, tx, memory.FindMemoryParams{Namespace: ns, Scope: c.scope, Subject: c.Subject, Key: c.Key})
	if errors.Is(err, memory.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return findValue(head.Live, c) != nil, nil
}

func sameSlot(a, b *candidate) bool {
	return a.Subject == b.Subject && a.Key == b.Key && a.scope == b.scope
}

// readSlot reads a slot and the head of its history: in one query where
// the store can (memory.SlotHeadReader), leaving vs nil; else by FindMemory
// and ListVersions, returning the whole history as vs. Versions are read
// without embeddings.
func readSlot(ctx context.Context, tx memory.Executor, p memory.FindMemoryParams) (*memory.SlotHead, []*memory.Version, error) {
	if r, ok := tx.(memory.SlotHeadReader); ok {
		h, err := r.ReadSlotHead(ctx, p)
		return h, nil, err
	}
	m, err := tx.FindMemory(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	vs, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: p.Namespace, MemoryID: m.ID, WithoutEmbeddings: true})
	if err != nil {
		return nil, nil, err
	}
	return &memory.SlotHead{Memory: m, Live: liveOf(vs), NextSeq: memory.NextSeq(vs)}, vs, nil
}

// liveOf returns the live versions of vs, in order.
func liveOf(vs []*memory.Version) []*memory.Version {
	var live []*memory.Version
	for _, v := range vs {
		if v.Status.Live() {
			live = append(live, v)
		}
	}
	return live
}

// needsHistory reports whether reconciling c against a slot whose live
// versions are live reads the slot's past values (sameHistory, nextAfter):
// a past-tense statement whose value is not live, a slot with no live
// value, and a statement observed before the slot's latest. Every other
// case (a restatement of a live value, a newer value, weak evidence, a
// negation) is decided on the live versions and the next seq alone.
func needsHistory(c *candidate, live []*memory.Version, sameLive *memory.Version) bool {
	switch c.Cue {
	case extract.CueNegation:
		return false
	case extract.CuePast:
		return sameLive == nil
	}
	if sameLive != nil {
		return false
	}
	latest := latestObserved(live)
	return latest == nil || c.observedAt.Before(latest.ObservedAt)
}

// reconcileNewSlot handles a candidate whose slot does not exist yet.
func (e *Engine) reconcileNewSlot(ctx context.Context, tx memory.Executor, st *nsState, w *writeBatch, c *candidate, now time.Time, out Outcome) (Outcome, error) {
	if c.Cue == extract.CueNegation {
		out.Operation = memory.OpNoop
		out.Reasons = append(out.Reasons, "nothing_to_end")
		return out, nil
	}
	if c.Cue != extract.CuePast && c.extractor != "direct" {
		// A fact given with an explicit key belongs in that slot.
		dup, err := e.nearDuplicate(ctx, tx, st, w, c)
		if err != nil {
			return out, err
		}
		if dup != nil {
			return e.reinforce(ctx, tx, w, dup, c, now, out, "near_duplicate")
		}
	}
	m := &memory.Memory{
		ID: ids.New(ids.Memory), Namespace: st.Name(), Scope: c.scope, Kind: kindOf(c.Type),
		Subject: c.Subject, Key: c.Key, CreatedAt: now, UpdatedAt: now,
	}
	v := e.newVersion(m, 1, c, now)
	if c.Cue == extract.CuePast {
		v.Status, v.ValidTo = memory.StatusExpired, timePtr(c.observedAt)
		v.ValidFrom = time.Time{}
		out.Reasons = append(out.Reasons, "history")
		w.notePast(v, c)
	}
	if err := createSlot(ctx, tx, m, v); err != nil {
		return out, err
	}
	return e.added(w, m, v, c, out), nil
}

// nearDuplicate returns a live fact of the same scope and type whose
// content is nearly identical to the candidate's (cosine ≥ 0.92), or nil.
//
// Candidates come from the wording signature (the set of analysed terms)
// and the signatures with one of its terms left out, so the check costs a
// few map lookups whatever the namespace's size: it catches restatements
// that differ in order, inflection, punctuation, stop words or one added
// word ("FYI, ..."). Paraphrases in other words are the dedupe job's.
func (e *Engine) nearDuplicate(ctx context.Context, tx memory.Executor, st *nsState, w *writeBatch, c *candidate) (*memory.Version, error) {
	if c.vec.Dim == 0 || c.sig == "" {
		return nil, nil
	}
	match := func(v *memory.Version) bool {
		if !v.Status.Live() || v.Scope != c.scope || v.Type != c.Type {
			return false
		}
		vec, err := search.DecodeVector(v.Embedding)
		return err == nil && float64(vec.Dot(c.vec)) >= nearDuplicate
	}
	for _, created := range w.bySig[c.sig] {
		// Read it again: a later candidate of this batch may have moved
		// its state since it was created.
		v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: st.Name(), ID: created.ID})
		if err != nil {
			return nil, err
		}
		if match(v) {
			return v, nil
		}
	}
	for _, id := range st.BySignatures(c.sig) {
		en, ok := st.Entry(id)
		if !ok || !en.V.Status.Live() || en.V.Scope != c.scope || en.V.Type != c.Type {
			continue
		}
		v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: st.Name(), ID: id})
		if err != nil {
			return nil, err
		}
		if match(v) {
			return v, nil
		}
	}
	return nil, nil
}

func (e *Engine) newVersion(m *memory.Memory, seq int, c *candidate, now time.Time) *memory.Version {
	v := &memory.Version{
		ID: ids.New(ids.Version), MemoryID: m.ID, Namespace: m.Namespace, Seq: seq, Scope: c.scope,
		Kind: kindOf(c.Type), Type: c.Type, Subject: c.Subject, Key: c.Key, Value: c.Value,
		Content: c.Content, Criticality: c.Criticality, Confidence: c.Confidence, Usefulness: memory.NeutralUsefulness,
		Status: memory.StatusActive, Operation: memory.OpAdd,
		ObservedAt: c.observedAt, RecordedAt: now, ValidFrom: c.validFrom, ValidTo: c.validTo, UpdatedAt: now,
		EvidenceEpisodeIDs: []string{c.episodeID},
		EvidenceSpans:      []memory.Span{{EpisodeID: c.episodeID, Start: c.Start, End: c.End}},
		Provenance: memory.Provenance{
			Extractor: c.extractor, Embedder: e.embedder.Name(), EmbedderDim: e.embedder.Dim(), Source: c.source,
		},
		Tokens:    e.counter.Count(c.Content),
		Embedding: c.vec.EncodeCompact(),
	}
	if v.Criticality == "" {
		v.Criticality = memory.CriticalityNormal
	}
	v.Trust = trustOf(v, now)
	return v
}

func (e *Engine) add(ctx context.Context, tx memory.Executor, w *writeBatch, m *memory.Memory, v *memory.Version, c *candidate, out Outcome) (Outcome, error) {
	if err := tx.CreateVersion(ctx, v); err != nil {
		return out, err
	}
	return e.added(w, m, v, c, out), nil
}

// added records a version written for candidate c in the batch and the
// outcome.
func (e *Engine) added(w *writeBatch, m *memory.Memory, v *memory.Version, c *candidate, out Outcome) Outcome {
	w.created = append(w.created, v)
	w.noteFact(v, c.sig)
	if out.Operation == "" {
		out.Operation = memory.OpAdd
	}
	out.MemoryID, out.VersionID, out.Version = m.ID, v.ID, v
	return out
}

// reinforce adds the candidate's evidence to an existing version: more
// evidence, more confidence, the same claim.
func (e *Engine) reinforce(ctx context.Context, tx memory.Executor, w *writeBatch, v *memory.Version, c *candidate, now time.Time, out Outcome, reason string) (Outcome, error) {
	v.ReinforcementCount++
	v.Confidence = 1 - (1-v.Confidence)*(1-0.5*c.Confidence)
	if v.Confidence > 0.99 {
		v.Confidence = 0.99
	}
	if err := e.touch(ctx, tx, w, v, c, now); err != nil {
		return out, err
	}
	out.Operation, out.MemoryID, out.VersionID, out.Version = memory.OpReinforce, v.MemoryID, v.ID, v
	out.Reasons = append(out.Reasons, reason)
	return out, nil
}

// touch writes a version's new state, citing the candidate's episode when
// the candidate is evidence for it.
func (e *Engine) touch(ctx context.Context, tx memory.Executor, w *writeBatch, v *memory.Version, c *candidate, now time.Time) error {
	if c != nil && !contains(v.EvidenceEpisodeIDs, c.episodeID) {
		v.EvidenceEpisodeIDs = append(v.EvidenceEpisodeIDs, c.episodeID)
		v.EvidenceSpans = append(v.EvidenceSpans, memory.Span{EpisodeID: c.episodeID, Start: c.Start, End: c.End})
		if err := trimEvidence(ctx, tx, v); err != nil {
			return err
		}
	}
	v.UpdatedAt = now
	v.Trust = trustOf(v, now)
	if err := tx.UpdateVersionState(ctx, v); err != nil {
		return err
	}
	for i, u := range w.updated {
		if u.ID == v.ID {
			w.updated[i] = v
			return nil
		}
	}
	for i, u := range w.created {
		if u.ID == v.ID {
			// Created in this same batch: the index gets its final state,
			// with the embedding it was created with (a slot's history is
			// read without embeddings).
			if v.Embedding == nil {
				v.Embedding = u.Embedding
			}
			w.created[i] = v
			return nil
		}
	}
	w.updated = append(w.updated, v)
	return nil
}

// evidenceKeep bounds a fact's evidence: a fact restated every day would
// otherwise cite a statement a day for good, and every reinforcement
// rewrites the whole list.
const evidenceKeep = 16

// trimEvidence bounds a fact's evidence once it cites more than
// evidenceKeep statements. It keeps the first (where the fact came from)
// and the newest evidenceKeep-1, and of those in between drops:
//   - the ones whose text consolidation purged (their stubs remain), and
//   - the ones still held that repeat, word for word, a statement kept
//     (Forget finds those by their content hash).
//
// A statement still held in other words stays: it may still be retrieved,
// and forgetting the fact must find it. The reinforcement count keeps the
// tally of everything dropped.
func trimEvidence(ctx context.Context, ex memory.Records, v *memory.Version) error {
	ids := v.EvidenceEpisodeIDs
	if len(ids) <= evidenceKeep || v.Kind != memory.KindSemantic {
		return nil
	}
	eps, err := ex.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: v.Namespace, IDs: ids})
	if err != nil {
		return err
	}
	byID := make(map[string]*memory.Episode, len(eps))
	for _, ep := range eps {
		byID[ep.ID] = ep
	}
	keptHashes := make(map[string]bool, evidenceKeep)
	for _, id := range append([]string{ids[0]}, ids[len(ids)-(evidenceKeep-1):]...) {
		if ep := byID[id]; ep != nil && ep.ContentHash != "" {
			keptHashes[ep.ContentHash] = true
		}
	}
	drop := make(map[string]bool)
	for _, id := range ids[1 : len(ids)-(evidenceKeep-1)] {
		if ep := byID[id]; ep != nil && (ep.Content == "" || keptHashes[ep.ContentHash]) {
			drop[id] = true
		}
	}
	if len(drop) == 0 {
		return nil
	}
	v.EvidenceEpisodeIDs = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return drop[id] })
	v.EvidenceSpans = slices.DeleteFunc(slices.Clone(v.EvidenceSpans), func(sp memory.Span) bool { return drop[sp.EpisodeID] })
	return nil
}

func admissionOf(ns string, c *candidate, out Outcome, now time.Time) *memory.Admission {
	return &memory.Admission{
		ID: ids.New(ids.Admission), Namespace: ns, EpisodeID: c.episodeID,
		MemoryID: out.MemoryID, VersionID: out.VersionID, Decision: out.Decision,
		Reasons: out.Reasons, Operation: out.Operation, Content: c.Content, Extractor: c.extractor,
		CreatedAt: now,
	}
}

func episodeAdmission(ns string, pe *pendingEvent, now time.Time) *memory.Admission {
	d := memory.AdmitAccept
	switch {
	case pe.epStatus == memory.StatusQuarantined:
		d = memory.AdmitQuarantine
	case !pe.indexed:
		d = memory.AdmitReject
	}
	return &memory.Admission{
		ID: ids.New(ids.Admission), Namespace: ns, EpisodeID: pe.ep.ID, Decision: d,
		Reasons: pe.epReason, Content: pe.ep.Content, Extractor: "episode", CreatedAt: now,
		Models: pe.models,
	}
}

func kindOf(t memory.Type) memory.Kind {
	if t == memory.TypeProcedure {
		return memory.KindProcedural
	}
	return memory.KindSemantic
}

// sameValue compares two values as a person would: case, surrounding
// punctuation and articles do not matter.
func sameValue(a, b string) bool {
	return normValue(a) == normValue(b)
}

func normValue(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Trim(s, " .,!?;:'\"`()[]")
	for _, p := range []string{"the ", "a ", "an "} {
		s = strings.TrimPrefix(s, p)
	}
	return strings.Join(strings.Fields(s), " ")
}

func findValue(vs []*memory.Version, c *candidate) *memory.Version {
	for i := len(vs) - 1; i >= 0; i-- {
		if sameValue(vs[i].Value, c.Value) {
			return vs[i]
		}
	}
	return nil
}

func latestObserved(vs []*memory.Version) *memory.Version {
	var best *memory.Version
	for _, v := range vs {
		if best == nil || v.ObservedAt.After(best.ObservedAt) {
			best = v
		}
	}
	return best
}

func earliest(vs []*memory.Version) *memory.Version {
	var best *memory.Version
	for _, v := range vs {
		if best == nil || v.ValidFrom.Before(best.ValidFrom) {
			best = v
		}
	}
	return best
}

// nextAfter returns the version whose validity began first after t: the one
// a late observation from t was replaced by.
func nextAfter(vs []*memory.Version, t time.Time) *memory.Version {
	sorted := append([]*memory.Version(nil), vs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ValidFrom.Before(sorted[j].ValidFrom) })
	for _, v := range sorted {
		if v.ValidFrom.After(t) && (v.Status.Live() || v.Status.History()) {
			return v
		}
	}
	return latestObserved(vs)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func timePtr(t time.Time) *time.Time { return &t }

// needsSignatures reports whether reconciling evs may look for near
// duplicates by wording signature.
func needsSignatures(evs []*pendingEvent) bool {
	for _, pe := range evs {
		for _, c := range pe.cands {
			if c.decision == memory.AdmitAccept && c.sig != "" {
				return true
			}
		}
	}
	return false
}

// liveFactsOfCategoryLocked returns the live facts whose key holds a word
// of the category cat ("issue_tracker": "issue", "tracker"), each once, in
// the order the key postings list them. Call with st's read lock held.
func (e *Engine) liveFactsOfCategoryLocked(st *nsState, cat string) []*memory.Version {
	var out []*memory.Version
	seen := map[string]bool{}
	for _, t := range e.analyzer.QueryTerms(strings.ReplaceAll(cat, "_", " ")) {
		for _, id := range st.KeyPostingsLocked(t) {
			en, ok := st.EntryLocked(id)
			if !ok || seen[id] {
				continue
			}
			seen[id] = true
			if en.V.Kind == memory.KindSemantic && en.V.Status.Live() {
				out = append(out, en.V)
			}
		}
	}
	return out
}

// componentSlot moves a team's change of a thing that exactly one part of
// the project uses into that part's slot: after "our api is on mysql 5.7"
// (uses:database:api), "we moved to mysql 8" reads as the team's database
// (uses:database), yet it is the api's that changed. When the team holds
// no live value of that slot naming the same thing, and exactly one live
// fact of a part's slot of that category does, the change takes the
// part's key, and its content is the part's with the value replaced. Two
// parts on the same thing leave it as the team's: which one moved is not
// said. The index holds what earlier requests wrote.
//
// A speaker's change said with no subject ("bumped to svelte 5 last
// night" reads as the speaker's prefers:framework) of a thing that only
// the team is on (our frontend on svelte 4) is the team's change of that
// slot, likewise: when the speaker holds no live value of that category
// and exactly one live team slot of it names the same thing, without its
// version.
func (e *Engine) componentSlot(st *nsState, c *candidate) {
	parts := strings.Split(c.Key, ":")
	if c.Cue != extract.CueCorrection || len(parts) != 2 || c.Value == "" {
		return
	}
	team := parts[0] == "uses" && c.Subject == "team"
	if !team && (parts[0] != "prefers" || c.Subject != DefaultSpeaker) {
		return
	}
	thing := productOf(c.Value)
	if thing == "" {
		return
	}
	var found *memory.Version
	st.RLock()
	defer st.RUnlock()
	for _, v := range e.liveFactsOfCategoryLocked(st, parts[1]) {
		if !c.scope.Visible(v.Scope) {
			continue
		}
		if !team {
			if v.Subject == c.Subject && v.Key == c.Key {
				return // the speaker's own slot: the change is the speaker's
			}
			if v.Subject != "team" || productOf(v.Value) != thing ||
				v.Key != "uses:"+parts[1] && !strings.HasPrefix(v.Key, "uses:"+parts[1]+":") {
				continue
			}
			if found != nil && found.Key != v.Key {
				return // two slots on it: which one moved is not said
			}
			found = v
			continue
		}
		if v.Subject != c.Subject || productOf(v.Value) != thing {
			continue
		}
		if v.Key == c.Key {
			return // the team's own slot holds it: the change is the team's
		}
		if !strings.HasPrefix(v.Key, c.Key+":") || strings.Count(v.Key, ":") != 2 {
			continue
		}
		if found != nil && found.Key != v.Key {
			return // two parts on it: which one moved is not said
		}
		found = v
	}
	if found == nil || sameValue(found.Value, c.Value) {
		return
	}
	at := strings.Index(strings.ToLower(found.Content), strings.ToLower(found.Value))
	if at < 0 {
		return
	}
	c.Key = found.Key
	c.Content = found.Content[:at] + c.Value + found.Content[at+len(found.Value):]
	if team {
		c.reasons = append(c.reasons, "the_one_part_using_it")
		return
	}
	c.Subject, c.Type = found.Subject, found.Type
	c.reasons = append(c.reasons, "the_team_using_it")
}

// productOf is a value without its version: "mysql 8" and "MySQL 5.7" are
// both "mysql"; "" for a value that is only a version.
func productOf(value string) string {
	words := strings.Fields(strings.ToLower(value))
	for len(words) > 0 {
		last := strings.TrimPrefix(words[len(words)-1], "v")
		if last == "" || strings.Trim(last, "0123456789.x") != "" {
			break
		}
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}
