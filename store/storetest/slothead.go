package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// slotHead checks memory.SlotHeadReader where the backend implements it,
// straight on the store and inside InTx: ReadSlotHead must answer what
// FindMemory and ListVersions (without embeddings) answer together, the
// live versions in their order and the next seq of the whole history.
// A backend that does not implement it skips the group; the engine then
// reads the slot with FindMemory and ListVersions.
func (s suite) slotHead(t *testing.T) {
	s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, md mode) {
		read := func(p memory.FindMemoryParams) (h *memory.SlotHead, err error) {
			err = md.do(ctx, st, func(ex memory.Executor) error {
				r, ok := ex.(memory.SlotHeadReader)
				if !ok {
					t.Skipf("%T does not implement memory.SlotHeadReader", ex)
				}
				h, err = r.ReadSlotHead(ctx, p)
				return err
			})
			return h, err
		}
		const ns = "slots"
		scope := memory.Scope{AgentID: "a", UserID: "u", ProjectID: "p", SessionID: "s"}
		m := newMemory(ns, "mem-slot", "user", "prefers:editor", scope)
		empty := newMemory(ns, "mem-empty", "user", "prefers:shell", scope)
		other := newMemory(ns, "mem-other", "user", "prefers:editor", memory.Scope{UserID: "u"})
		// A history out of seq order: seq 5 (expired) is the highest but
		// was recorded first; two live versions recorded at the same
		// instant order by id; a quarantined one is neither live nor
		// history.
		vs := []*memory.Version{
			withState(newVersion(ns, "v-5", m, 5, at(10)), memory.KindSemantic, memory.StatusExpired),
			withState(newVersion(ns, "v-1", m, 1, at(11)), memory.KindSemantic, memory.StatusSuperseded),
			withState(newVersion(ns, "v-3b", m, 3, at(13)), memory.KindSemantic, memory.StatusActive),
			withState(newVersion(ns, "v-3a", m, 2, at(13)), memory.KindSemantic, memory.StatusContested),
			withState(newVersion(ns, "v-4", m, 4, at(12)), memory.KindSemantic, memory.StatusQuarantined),
			withState(newVersion(ns, "v-o", other, 1, at(14)), memory.KindSemantic, memory.StatusActive),
		}
		// A value equal to its content (stored once by some backends).
		vs[2].Value = vs[2].Content
		createAll(t, ctx, st, []*memory.Memory{m, empty, other}, vs)
		must(t, st.CreateMemory(ctx, newMemory("elsewhere", "mem-slot", "user", "prefers:editor", scope)))

		p := memory.FindMemoryParams{Namespace: ns, Scope: scope, Subject: "user", Key: "prefers:editor"}
		h, err := read(p)
		must(t, err)
		same(t, "memory", m, h.Memory)
		if h.NextSeq != 6 {
			t.Errorf("NextSeq = %d, want 6", h.NextSeq)
		}
		all, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: m.ID, WithoutEmbeddings: true})
		must(t, err)
		var want []*memory.Version
		for _, v := range all {
			if v.Status.Live() {
				want = append(want, v)
			}
		}
		if len(h.Live) != len(want) {
			t.Fatalf("live: got %d versions, want %d (%v)", len(h.Live), len(want), verIDs(h.Live))
		}
		for i := range want {
			if h.Live[i].ID != want[i].ID {
				t.Errorf("live[%d] = %s, want %s (order by recorded_at, then id)", i, h.Live[i].ID, want[i].ID)
			}
			same(t, "live version "+want[i].ID, want[i], h.Live[i])
		}
		if want := []string{"v-3a", "v-3b"}; len(h.Live) == 2 && (h.Live[0].ID != want[0] || h.Live[1].ID != want[1]) {
			t.Errorf("live = %v, want %v", verIDs(h.Live), want)
		}

		// A slot without versions, one in another scope, and none at all.
		h, err = read(memory.FindMemoryParams{Namespace: ns, Scope: scope, Subject: "user", Key: "prefers:shell"})
		must(t, err)
		if h.Memory.ID != empty.ID || len(h.Live) != 0 || h.NextSeq != 1 {
			t.Errorf("empty slot: memory %s, %d live, NextSeq %d; want %s, 0, 1", h.Memory.ID, len(h.Live), h.NextSeq, empty.ID)
		}
		h, err = read(memory.FindMemoryParams{Namespace: ns, Scope: memory.Scope{UserID: "u"}, Subject: "user", Key: "prefers:editor"})
		must(t, err)
		if h.Memory.ID != other.ID || len(h.Live) != 1 || h.Live[0].ID != "v-o" || h.NextSeq != 2 {
			t.Errorf("other scope: memory %s, live %v, NextSeq %d; want %s, [v-o], 2", h.Memory.ID, verIDs(h.Live), h.NextSeq, other.ID)
		}
		for _, miss := range []memory.FindMemoryParams{
			{Namespace: ns, Scope: scope, Subject: "user", Key: "prefers:nothing"},
			{Namespace: ns, Scope: memory.Scope{UserID: "nobody"}, Subject: "user", Key: "prefers:editor"},
			{Namespace: "elsewhere-too", Scope: scope, Subject: "user", Key: "prefers:editor"},
		} {
			_, err := read(miss)
			wantErr(t, "missing slot "+miss.Namespace+"/"+miss.Key, err, memory.ErrNotFound)
		}
		// The other namespace's slot of the same name has no versions:
		// nothing of this one's leaks into it.
		h, err = read(memory.FindMemoryParams{Namespace: "elsewhere", Scope: scope, Subject: "user", Key: "prefers:editor"})
		must(t, err)
		if len(h.Live) != 0 || h.NextSeq != 1 {
			t.Errorf("other namespace: %d live, NextSeq %d; want 0, 1", len(h.Live), h.NextSeq)
		}
		_, err = read(memory.FindMemoryParams{Namespace: "Not A Namespace!", Subject: "user", Key: "k"})
		if err == nil || errors.Is(err, memory.ErrNotFound) {
			t.Errorf("invalid namespace: got %v, want an invalid-input error", err)
		}
	})

	// Inside a transaction the head reflects the transaction's own writes.
	t.Run("OwnWrites", func(t *testing.T) {
		ctx, st := s.fresh(t)
		const ns = "slots"
		m := newMemory(ns, "mem-w", "user", "lives_in", memory.Scope{})
		v1 := newVersion(ns, "v-w1", m, 1, at(1))
		createAll(t, ctx, st, []*memory.Memory{m}, []*memory.Version{v1})
		err := st.InTx(ctx, func(ex memory.Executor) error {
			r, ok := ex.(memory.SlotHeadReader)
			if !ok {
				t.Skipf("%T does not implement memory.SlotHeadReader", ex)
			}
			v2 := newVersion(ns, "v-w2", m, 2, at(2))
			must(t, ex.CreateVersion(ctx, v2))
			v1.Status, v1.SupersededBy = memory.StatusSuperseded, v2.ID
			must(t, ex.UpdateVersionState(ctx, v1))
			h, err := r.ReadSlotHead(ctx, memory.FindMemoryParams{Namespace: ns, Subject: "user", Key: "lives_in"})
			must(t, err)
			if len(h.Live) != 1 || h.Live[0].ID != v2.ID || h.NextSeq != 3 {
				t.Errorf("in the transaction: live %v, NextSeq %d; want [v-w2], 3", verIDs(h.Live), h.NextSeq)
			}
			if len(h.Live) == 1 && h.Live[0].Embedding != nil {
				t.Errorf("live versions come without embeddings; got %d bytes", len(h.Live[0].Embedding))
			}
			return nil
		})
		must(t, err)
	})
}

func verIDs(vs []*memory.Version) []string {
	return ids(vs, func(v *memory.Version) string { return v.ID })
}
