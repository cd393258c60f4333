package storetest

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// values checks that awkward values survive every read path: text with
// quotes, backslashes, HTML characters, line breaks and non-ASCII; extreme
// floats and integers; long content; empty-but-present lists.
func (s suite) values(t *testing.T) {
	t.Run("Unusual", func(t *testing.T) {
		s.eachMode(t, func(t *testing.T, ctx context.Context, st memory.Store, m mode) {
			// No NUL byte: PostgreSQL text cannot hold one.
			odd := `quote" back\slash <b>&amp; tab	newline
 ünïcødé ✓ 🧠 \u0000`
			mem := newMemory(ns, "mem-odd", odd, odd, memory.Scope{AgentID: odd})
			v := newVersion(ns, "ver-odd", mem, math.MaxInt32, at(1))
			v.Value, v.Content, v.SearchText = odd, strings.Repeat(odd, 500), odd
			v.Confidence, v.Usefulness, v.Trust = math.SmallestNonzeroFloat64, math.MaxFloat64, -1.5
			v.ReinforcementCount, v.FailureCount, v.Tokens = math.MaxInt32, -1, 0
			v.EvidenceEpisodeIDs = []string{odd, "", "ep_plain"}
			v.EvidenceSpans = []memory.Span{{EpisodeID: odd, Start: -1, End: math.MaxInt32}}
			v.Provenance.Model = odd
			v.Embedding = []byte{0, 0xff, 0, 0x00}
			empty := newBareVersion(ns, "ver-empty", mem, 2, at(2))
			empty.EvidenceEpisodeIDs, empty.EvidenceSpans = []string{}, []memory.Span{}
			ep := newEpisode(ns, "ep-odd", odd, at(0))
			ep.Content, ep.Speaker = odd, odd
			ep.Metadata = map[string]string{odd: odd, "": ""}
			empty2 := newEpisode(ns, "ep-empty-meta", "s", at(0))
			empty2.Metadata = map[string]string{}
			adm := newAdmission(ns, "adm-odd", odd, odd, at(3))
			adm.Reasons = []string{odd}
			tr := newTrace(ns, "ret-odd", at(4))
			tr.Query = odd
			tr.Items[0].Channels = append(tr.Items[0].Channels, memory.NamedChannelHit{Channel: odd, ChannelHit: memory.ChannelHit{Rank: math.MaxInt32, Score: -math.MaxFloat64}})
			tr.Items[0].Explanation = odd
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				if err := ex.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{ep, empty2}}); err != nil {
					return err
				}
				if err := ex.CreateMemory(ctx, mem); err != nil {
					return err
				}
				if err := ex.CreateVersion(ctx, v); err != nil {
					return err
				}
				if err := ex.CreateVersion(ctx, empty); err != nil {
					return err
				}
				if err := ex.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{adm}}); err != nil {
					return err
				}
				return ex.CreateTrace(ctx, tr)
			}))
			must(t, m.do(ctx, st, func(ex memory.Executor) error {
				for _, want := range []*memory.Version{v, empty} {
					got, err := ex.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: want.ID})
					if err != nil {
						return err
					}
					same(t, "GetVersion "+want.ID, want, got)
				}
				scanned, err := collectScan(ex.ScanVersions, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, "ScanVersions", ids(scanned, versionID), []string{"ver-empty", "ver-odd"})
				if len(scanned) == 2 {
					same(t, "scanned ver-empty", empty, scanned[0])
					same(t, "scanned ver-odd", v, scanned[1])
				}
				found, err := ex.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: mem.Scope, Subject: odd, Key: odd})
				if err != nil {
					return err
				}
				same(t, "FindMemory by odd subject and key", mem, found)
				mems, err := collectScan(ex.ScanMemories, ctx, ns)
				if err != nil {
					return err
				}
				if len(mems) == 1 {
					same(t, "scanned memory", mem, mems[0])
				}
				eps, err := collectScan(ex.ScanEpisodes, ctx, ns)
				if err != nil {
					return err
				}
				wantIDs(t, "ScanEpisodes", ids(eps, episodeID), []string{"ep-empty-meta", "ep-odd"})
				if len(eps) == 2 {
					same(t, "scanned empty metadata", empty2, eps[0])
					same(t, "scanned odd episode", ep, eps[1])
				}
				bySession, err := ex.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, SessionID: odd})
				if err != nil {
					return err
				}
				wantIDs(t, "ListEpisodes by odd session", ids(bySession, episodeID), []string{"ep-odd"})
				as, err := ex.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, MemoryID: odd, EpisodeID: odd})
				if err != nil {
					return err
				}
				if len(as) == 1 {
					same(t, "admission", adm, as[0])
				} else {
					t.Errorf("ListAdmissions by odd ids: %d rows", len(as))
				}
				gotTr, err := ex.GetTrace(ctx, memory.GetParams{Namespace: ns, ID: tr.ID})
				if err != nil {
					return err
				}
				same(t, "trace", tr, gotTr)
				return nil
			}))
		})
	})
}
