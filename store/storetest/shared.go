package storetest

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// sharedText holds a backend to "every read returns what was written" when
// rows repeat each other's text: a remember writes its episode, the
// episode's version and a note of the very same text and vector, and
// admissions quoting the episode, in one transaction. A backend may store
// the text once (SQLite does); deleting or re-embedding the row others
// share, or purging the episode, must not change what the others read.
func (s suite) sharedText(t *testing.T) {
	ctx, st := s.fresh(t)
	const ns, other = "shared", "shared-other"
	text := "Fixed a flaky bug in the exporter where searching broke under vim"
	vec := []byte{1, 2, 3, 4, 5, 6, 7, 8}

	ep := newEpisode(ns, "e-1", "s-1", at(0))
	ep.Content = text
	pair := func(ns, id string, seq int) (*memory.Memory, *memory.Memory, *memory.Version, *memory.Version) {
		note := newMemory(ns, "m-note-"+id, "user", "note:"+id, memory.Scope{})
		epm := newMemory(ns, "m-ep-"+id, "user", "episode:"+id, memory.Scope{})
		epm.Kind = memory.KindEpisodic
		nv := newVersion(ns, "v-note-"+id, note, 1, at(seq))
		nv.Value, nv.Content, nv.Embedding = text, text, vec
		ev := newVersion(ns, "v-ep-"+id, epm, 1, at(seq))
		ev.Kind, ev.Value, ev.Content, ev.Embedding = memory.KindEpisodic, "", text, vec
		return note, epm, nv, ev
	}
	var written []*memory.Version
	write := func(ns, id string, seq int) (*memory.Version, *memory.Version) {
		t.Helper()
		note, epm, nv, ev := pair(ns, id, seq)
		must(t, st.InTx(ctx, func(tx memory.Executor) error {
			for _, m := range []*memory.Memory{note, epm} {
				if err := tx.CreateMemory(ctx, m); err != nil {
					return err
				}
			}
			for _, v := range []*memory.Version{nv, ev} {
				if err := tx.CreateVersion(ctx, v); err != nil {
					return err
				}
			}
			return nil
		}))
		written = append(written, nv, ev)
		return nv, ev
	}
	adm := func(id, episode, content string) *memory.Admission {
		a := newAdmission(ns, id, episode, "m-fact", at(1))
		a.Content = content
		return a
	}
	admissions := []*memory.Admission{adm("a-1", "e-1", text), adm("a-2", "e-missing", text), adm("a-3", "e-1", "another text"), adm("a-4", "e-1", "")}
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{ep}}); err != nil {
			return err
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: admissions})
	}))
	write(ns, "a", 1)
	write(other, "a", 1) // the same text in another namespace
	noteB, epB := write(ns, "b", 2)
	noteC, epC := write(ns, "c", 3)

	check := func(what string, want []*memory.Version) {
		t.Helper()
		for _, w := range want {
			got, err := st.GetVersion(ctx, memory.GetParams{Namespace: w.Namespace, ID: w.ID})
			must(t, err)
			same(t, what+": get "+w.ID, w, got)
		}
		for _, n := range []string{ns, other} {
			byID := map[string]*memory.Version{}
			must(t, st.ScanVersions(ctx, memory.ScanParams{Namespace: n}, func(v *memory.Version) error {
				byID[v.ID] = v
				return nil
			}))
			listed, err := st.ListVersions(ctx, memory.ListVersionsParams{Namespace: n})
			must(t, err)
			if len(listed) != len(byID) {
				t.Errorf("%s: %s lists %d versions, scans %d", what, n, len(listed), len(byID))
			}
			for _, v := range listed {
				same(t, what+": list vs scan "+v.ID, byID[v.ID], v)
			}
			if vs, ok := st.(memory.VersionStreamer); ok {
				must(t, vs.StreamVersions(ctx, memory.ScanParams{Namespace: n}, func(v *memory.Version) error {
					same(t, what+": stream vs scan "+v.ID, byID[v.ID], v)
					return nil
				}))
			}
			for _, w := range want {
				if w.Namespace == n {
					if byID[w.ID] == nil {
						t.Errorf("%s: scan of %s lacks %s", what, n, w.ID)
						continue
					}
					same(t, what+": scan "+w.ID, w, byID[w.ID])
				}
			}
		}
	}
	check("written", written)
	gotAdm, err := st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns})
	must(t, err)
	if len(gotAdm) != len(admissions) {
		t.Fatalf("%d admissions, want %d", len(gotAdm), len(admissions))
	}
	for _, g := range gotAdm {
		for _, w := range admissions {
			if w.ID == g.ID {
				same(t, "admission "+w.ID, w, g)
			}
		}
	}

	// Re-embedding the row the episode's version may share, then the
	// sharer itself: each reads its own vector, the text stays.
	vec2, vec3 := []byte{9, 9, 9, 9}, []byte{7, 7}
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.SetEmbedding(ctx, memory.SetEmbeddingParams{Namespace: ns, ID: noteB.ID, Embedding: vec2,
			Embedder: "e2", EmbedderDim: 4, ChangedAt: at(5)}); err != nil {
			return err
		}
		return tx.SetEmbedding(ctx, memory.SetEmbeddingParams{Namespace: ns, ID: epC.ID, Embedding: vec3,
			Embedder: "e3", EmbedderDim: 2, ChangedAt: at(5)})
	}))
	noteB.Embedding, noteB.Provenance.Embedder, noteB.Provenance.EmbedderDim = vec2, "e2", 4
	epC.Embedding, epC.Provenance.Embedder, epC.Provenance.EmbedderDim = vec3, "e3", 2
	check("re-embedded", []*memory.Version{noteB, epB, noteC, epC})

	// Deleting the note of pair a: its episode's version keeps its text and
	// vector; purging the episode: the admissions that quoted it keep it.
	must(t, st.InTx(ctx, func(tx memory.Executor) error {
		if _, err := tx.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: ns, MemoryIDs: []string{"m-note-a"},
			VersionIDs: []string{"v-note-a"}, Now: at(6)}); err != nil {
			return err
		}
		return tx.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: ns, EpisodeID: "e-1", Metadata: map[string]string{"purged_into": "m-x"}})
	}))
	var left []*memory.Version
	for _, v := range written {
		if v.ID != "v-note-a" || v.Namespace != ns {
			left = append(left, v)
		}
	}
	check("after deleting and purging", left)
	if _, err := st.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: "v-note-a"}); err == nil {
		t.Error("the deleted note still reads")
	}
	gotAdm, err = st.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, EpisodeID: "e-1"})
	must(t, err)
	for _, g := range gotAdm {
		for _, w := range admissions {
			if w.ID == g.ID {
				same(t, "admission after purge "+w.ID, w, g)
			}
		}
	}
	if len(gotAdm) != 3 {
		t.Errorf("after purging e-1: %d of its admissions, want the 3 kept (accepted, not the episode's own)", len(gotAdm))
	}
}
