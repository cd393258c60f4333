package locomo

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mnemon-dev/mnemon/bench"
	"github.com/mnemon-dev/mnemon/client"
	"github.com/mnemon-dev/mnemon/engine"
)

// The API path: the conversations captured and the questions asked over
// mnemon's HTTP API with the Go client, the way agent code drives a
// server. Each LoCoMo session is one capture with its own session id, and
// each question is asked from a later conversation of its own, so what a
// session said must be recalled across sessions.

// SessionID is the session id a LoCoMo session is captured under.
func SessionID(n int) string { return "locomo-session-" + strconv.Itoa(n) }

// QuestionSession is the session the questions are asked from: a later
// conversation than any captured.
const QuestionSession = "locomo-questions"

// APIClients makes a client of the server at baseURL for each namespace.
type APIClients struct {
	baseURL string
	http    *http.Client
	byNS    map[string]*client.Client
}

// NewAPIClients returns clients of the open (keyless) server at baseURL.
func NewAPIClients(baseURL string) *APIClients {
	return &APIClients{baseURL: baseURL, http: &http.Client{}, byNS: make(map[string]*client.Client)}
}

// For returns the client that names namespace ns.
func (a *APIClients) For(ns string) (*client.Client, error) {
	if c, ok := a.byNS[ns]; ok {
		return c, nil
	}
	c, err := client.New(a.baseURL, client.Options{Namespace: ns, HTTPClient: a.http, UserAgent: "mnemon-bench-locomo"})
	if err != nil {
		return nil, err
	}
	a.byNS[ns] = c
	return c, nil
}

// IngestAPI captures every turn of the samples over the HTTP API: one
// namespace per conversation (as Ingest), one capture per session carrying
// SessionID(n), each waiting for its extraction to finish.
func IngestAPI(ctx context.Context, clients *APIClients, samples []Sample, progress *bench.Progress) (*Corpus, error) {
	c := &Corpus{namespaces: make(map[string]string), turnOf: make(map[string]string)}
	for i := range samples {
		s := &samples[i]
		ns := Namespace(s.ID)
		c.namespaces[s.ID] = ns
		cl, err := clients.For(ns)
		if err != nil {
			return nil, err
		}
		for _, ss := range s.Sessions {
			if len(ss.Turns) == 0 {
				continue
			}
			evs := make([]client.Event, len(ss.Turns))
			for j, t := range ss.Turns {
				evs[j] = client.Event{
					Kind: client.KindUserMessage, Content: Content(t), Speaker: t.Speaker,
					OccurredAt: ss.Time.Add(time.Duration(j) * time.Second),
					Metadata:   map[string]string{"dia_id": t.ID},
				}
			}
			res, err := cl.Capture(ctx, client.CaptureRequest{SessionID: SessionID(ss.N), Events: evs, Wait: true})
			if err != nil {
				return nil, fmt.Errorf("ingest %s session %d over the API: %w", s.ID, ss.N, err)
			}
			if res.JobState != "succeeded" {
				return nil, fmt.Errorf("ingest %s session %d over the API: extraction job %s ended %q", s.ID, ss.N, res.JobID, res.JobState)
			}
			if err := c.record(s, ss, res.EpisodeIDs); err != nil {
				return nil, err
			}
			progress.Add(len(ss.Turns))
		}
	}
	return c, nil
}

// APIArm retrieves over the HTTP API from a corpus ingested by IngestAPI,
// asking from QuestionSession.
type APIArm struct {
	name    string
	clients *APIClients
	corpus  *Corpus
	turns   *int // context_turns; nil: the server's default
}

// NewAPIArm returns an arm named name. contextTurns is sent as
// context_turns (nil: the server's default).
func NewAPIArm(name string, clients *APIClients, corpus *Corpus, contextTurns *int) *APIArm {
	return &APIArm{name: name, clients: clients, corpus: corpus, turns: contextTurns}
}

// Name implements Arm.
func (a *APIArm) Name() string { return a.name }

// Retrieve implements Arm, with the largest token budget as EngineArm.
func (a *APIArm) Retrieve(ctx context.Context, s *Sample, question string, k int) ([]Item, error) {
	return a.RetrieveWithin(ctx, s, question, k, engine.MaxTokenBudget)
}

// RetrieveWithin implements BudgetArm: the server packs within budget.
func (a *APIArm) RetrieveWithin(ctx context.Context, s *Sample, question string, k, budget int) ([]Item, error) {
	ns, ok := a.corpus.namespaces[s.ID]
	if !ok {
		return nil, fmt.Errorf("conversation %s was not ingested", s.ID)
	}
	cl, err := a.clients.For(ns)
	if err != nil {
		return nil, err
	}
	res, err := cl.Retrieve(ctx, client.RetrieveRequest{
		Query: question, Limit: k, TokenBudget: budget, SessionID: QuestionSession, ContextTurns: a.turns,
	})
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(res.Items))
	for _, it := range res.Items {
		out = append(out, a.corpus.item(it.EpisodeIDs, it.Tokens))
	}
	return out, nil
}
