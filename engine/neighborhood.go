package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/memory"
)

// The knowledge graph's claims are kept by the index (index/graph.go); this
// is the use case that shows an entity's neighbourhood.

// Graph limits.
const (
	DefaultGraphLimit = 50
	MaxGraphLimit     = 500
)

// GraphParams asks for the neighbourhood of an entity.
type GraphParams struct {
	Namespace string
	Entity    string // a name as a memory states it: "Bob", "pnpm", "user"
	Hops      int    // 1 or 2; 0 means 1
	// AsOf asks for the claims true at that valid time, current or
	// history. Without it only current claims are given, or with
	// IncludeHistory superseded and expired ones too.
	AsOf           *time.Time
	IncludeHistory bool
	Limit          int // claims at most; default DefaultGraphLimit
	// Scope, when set, keeps only claims of memories visible to it, as in
	// retrieval (memory.Scope.Visible): namespace-wide memories and those
	// of the named user, agent or project, whatever session they were said
	// in. Unset, the whole namespace is shown, as 'facts' lists it.
	Scope memory.Scope
}

// GraphEntity is one entity of a neighbourhood.
type GraphEntity struct {
	Name string `json:"name"`
	Hop  int    `json:"hop"` // 0 for the entity asked about
}

// GraphClaim is one claim: subject –relation→ object, from one version of
// one memory, with the version's status and validity.
type GraphClaim struct {
	Subject   string        `json:"subject"`
	Relation  string        `json:"relation"` // the key in words: "works at", "prefers editor"
	Key       string        `json:"key"`
	Object    string        `json:"object"`
	Value     string        `json:"value"` // the value as stated
	Content   string        `json:"content"`
	MemoryID  string        `json:"memory_id"`
	VersionID string        `json:"version_id"`
	Status    memory.Status `json:"status"`
	ValidFrom time.Time     `json:"valid_from"`
	ValidTo   *time.Time    `json:"valid_to,omitempty"`
	Hop       int           `json:"hop"` // 1 for a claim about the entity, 2 for one about a neighbour
}

// GraphResult is an entity's neighbourhood. An entity no memory names
// (or none that is served with these parameters) has an empty one.
type GraphResult struct {
	Entity    string        `json:"entity"` // the name asked for, normalised
	Hops      int           `json:"hops"`
	AsOf      *time.Time    `json:"as_of,omitempty"`
	Entities  []GraphEntity `json:"entities"`
	Claims    []GraphClaim  `json:"claims"`
	Truncated bool          `json:"truncated"` // more claims than Limit were in reach
}

// Neighborhood returns the claims within Hops of an entity: its own claims
// (hop 1), then the claims of the entities they name (hop 2), each hop
// ordered current first, then by subject, relation and newest validity.
// It reads the in-process graph only, so it costs no store query.
func (e *Engine) Neighborhood(ctx context.Context, p GraphParams) (*GraphResult, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	if err := p.Scope.Validate(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	switch {
	case p.Hops == 0:
		p.Hops = 1
	case p.Hops < 1 || p.Hops > 2:
		return nil, fmt.Errorf("graph: %w", memory.Invalidf("hops %d: use 1 or 2", p.Hops))
	}
	switch {
	case p.Limit == 0:
		p.Limit = DefaultGraphLimit
	case p.Limit < 0 || p.Limit > MaxGraphLimit:
		return nil, fmt.Errorf("graph: %w", memory.Invalidf("limit %d: use 1 to %d, or 0 for the default (%d)", p.Limit, MaxGraphLimit, DefaultGraphLimit))
	}
	if strings.TrimSpace(p.Entity) == "" {
		return nil, fmt.Errorf("graph: %w", memory.Invalidf("entity is empty: name one, such as user or a project"))
	}
	if err := checkTimePtr("as_of", p.AsOf); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	if len(p.Entity) > MaxQueryBytes {
		return nil, fmt.Errorf("graph: %w", memory.Invalidf("entity is %d bytes; the limit is %d", len(p.Entity), MaxQueryBytes))
	}
	st, err := e.index.Namespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	scoped := p.Scope.Owned()
	served := func(v *memory.Version) bool {
		if scoped && !p.Scope.Visible(v.Scope) {
			return false
		}
		switch {
		case p.AsOf != nil:
			return (v.Status.Live() || v.Status.History()) && v.ValidAt(*p.AsOf)
		case p.IncludeHistory:
			return v.Status.Live() || v.Status.History()
		}
		return v.Status.Live()
	}
	n := st.Neighborhood(p.Entity, p.Hops, p.Limit, served)
	res := &GraphResult{Entity: index.EntityName(p.Entity), Hops: p.Hops, AsOf: p.AsOf, Entities: []GraphEntity{}, Claims: []GraphClaim{}, Truncated: n.Truncated}
	for _, c := range n.Claims {
		res.Claims = append(res.Claims, graphClaimOf(c))
	}
	for _, en := range n.Entities {
		res.Entities = append(res.Entities, GraphEntity{Name: en.Name, Hop: en.Hop})
	}
	return res, nil
}

// graphClaimOf describes a version's claim.
func graphClaimOf(c index.Claim) GraphClaim {
	v := c.V
	return GraphClaim{
		Subject: c.Subject, Relation: index.KeyWords(v.Key), Key: v.Key,
		Object: c.Object, Value: v.Value, Content: v.Content,
		MemoryID: v.MemoryID, VersionID: v.ID, Status: v.Status,
		ValidFrom: v.ValidFrom, ValidTo: v.ValidTo, Hop: c.Hop,
	}
}
