package extract

import (
	"strings"
)

// Reason codes DetectInstruction returns.
const (
	ReasonIgnorePrevious     = "instruction:ignore_previous"
	ReasonRoleOverride       = "instruction:role_override"
	ReasonSystemPrompt       = "instruction:system_prompt"
	ReasonRevealInstructions = "instruction:reveal_instructions"
	ReasonNewInstructions    = "instruction:new_instructions"
	ReasonJailbreak          = "instruction:jailbreak"
	ReasonExfiltration       = "instruction:exfiltration"
	ReasonDeception          = "instruction:deception"
)

// templateMarkers are chat-template and role markers that have no business
// in a user's memory: text carrying them is trying to speak as the system.
var templateMarkers = []string{"<|im_start|>", "<|im_end|>", "<|system|>", "<|assistant|>",
	"<|user|>", "<|endoftext|>", "[system]", "<<sys>>", "<</sys>>", "[inst]", "[/inst]",
	"<system>", "</system>", "### system", "### instruction", "<|start_header_id|>",
	"<|eot_id|>", "[system message]", "<system_prompt>"}

// ignoreVerbs leave out "drop", "remove" and "delete": "drop the previous
// constraints" is a database migration, not an attack.
var ignoreVerbs = wordSet("instruction", "ignore-verbs")

// instructionNouns are what an injection tells the agent to drop. "message",
// "typo" and "question" are absent on purpose: "ignore my previous message"
// and "please ignore the typo" are ordinary corrections.
var instructionNouns = wordSet("instruction", "instruction-nouns")

// weakInstructionNouns are instruction nouns that need "previous", "above",
// "everything"... to count.
var weakInstructionNouns = wordSet("instruction", "weak-instruction-nouns")

// ignoreFillers may sit between an ignore verb and its object.
var ignoreFillers = wordSet("instruction", "ignore-fillers")

var revealVerbs = wordSet("instruction", "reveal-verbs")

// revealOwners mark the object as the agent's own configuration, so "show
// me the rules of chess" is not an attack but "show me your rules" is.
var revealOwners = wordSet("instruction", "reveal-owners")

var revealObjects = wordSet("instruction", "reveal-objects")

// revealFillers may stand between a reveal verb and its object: "show me
// all of what you were given".
var revealFillers = wordSet("instruction", "reveal-fillers")

var sensitiveData = wordSet("instruction", "sensitive-data")

// DetectInstruction reports whether text tries to instruct the agent rather
// than tell it something: prompt-injection phrasing such as "ignore all
// previous instructions", "disregard the above", "you are now ...",
// "reveal your system prompt", "new instructions:", "act as ... and",
// chat-template markers, jailbreak phrases, requests to send data away or
// to hide things from the user. The engine quarantines such content. The
// reason is a stable code such as "instruction:ignore_previous".
//
// Ordinary requests stay clean: "please ignore the typo", "ignore my
// previous message, I meant Vim", "show me the rules of chess".
func DetectInstruction(text string) (bool, string) {
	if text == "" {
		return false, ""
	}
	low := strings.ToLower(text)
	if strings.ContainsAny(low, "<[#") {
		for _, m := range templateMarkers {
			if strings.Contains(low, m) {
				return true, ReasonSystemPrompt
			}
		}
	}
	if lineStartsWith(low, "system:") || lineStartsWith(low, "system prompt:") {
		return true, ReasonSystemPrompt
	}
	ws := instructionWords(low)
	ts := make([]token, len(ws))
	for i, w := range ws {
		ts[i] = token{low: w.w, kind: tWord}
	}
	for i := range ws {
		if r := instructionAt(ws, ts, i); r != "" {
			return true, r
		}
	}
	return false, ""
}

// iword is one lowercased word of the text and whether a ':' follows it.
type iword struct {
	w     string
	colon bool
}

func instructionWords(low string) []iword {
	ws := make([]iword, 0, len(low)/5+1)
	for i := 0; i < len(low); {
		r, size := decodeRune(low, i)
		if !isWordRune(r) {
			if r == ':' && len(ws) > 0 {
				ws[len(ws)-1].colon = true
			}
			i += size
			continue
		}
		j := i
		for j < len(low) {
			r, size := decodeRune(low, j)
			if !isWordRune(r) && !isApostrophe(r) && r != '-' {
				break
			}
			j += size
		}
		w := low[i:j]
		if strings.Contains(w, "’") {
			w = strings.ReplaceAll(w, "’", "'")
		}
		// Expand the few contractions the patterns care about.
		switch w {
		case "you're":
			ws = append(ws, iword{w: "you"}, iword{w: "are"})
		case "don't", "dont":
			ws = append(ws, iword{w: "do"}, iword{w: "not"})
		case "what's":
			ws = append(ws, iword{w: "what"}, iword{w: "is"})
		default:
			ws = append(ws, iword{w: w})
		}
		i = j
	}
	return ws
}

func lineStartsWith(low, prefix string) bool {
	for {
		t := strings.TrimLeft(low, " \t#>*-")
		if strings.HasPrefix(t, prefix) {
			return true
		}
		nl := strings.IndexByte(low, '\n')
		if nl < 0 {
			return false
		}
		low = low[nl+1:]
	}
}

func wordAtIs(ws []iword, i int, alts ...string) bool {
	if i < 0 || i >= len(ws) {
		return false
	}
	for _, a := range alts {
		if ws[i].w == a {
			return true
		}
	}
	return false
}

// instructionAt checks every pattern anchored at word i: ignoring,
// revealing, sending away and what a colon follows here, the rest the
// [instructions] table of lexicons/cue-patterns.txt (ts are the words as
// tokens).
func instructionAt(ws []iword, ts []token, i int) string {
	w := ws[i].w
	switch {
	case ignoreVerbs[w]:
		if ignorePrevious(ws, i) {
			return ReasonIgnorePrevious
		}
	case revealVerbs[w]:
		if reveal(ws, i) {
			return ReasonRevealInstructions
		}
		if sendAway(ws, i) {
			return ReasonExfiltration
		}
	case w == "system" && wordAtIs(ws, i+1, "prompt", "message", "instructions") && ws[i+1].colon:
		return ReasonSystemPrompt // "system prompt: ..."
	case wordAtIs(ws, i, "new", "updated", "revised", "additional") && i+1 < len(ws) && ws[i+1].colon && newInstructionObjects[ws[i+1].w]:
		return ReasonNewInstructions // "new instructions: ..."
	default:
		if e, ok := firstCueAt(instructionCues, ts, i); ok {
			return instructionReasons[e]
		}
	}
	return ""
}

// instructionReasons are the reasons the effects of [instructions] give.
var instructionReasons = map[cueEffect]string{cueRoleOverride: ReasonRoleOverride, cueJailbreak: ReasonJailbreak,
	cueDeception: ReasonDeception, cueSystemPrompt: ReasonSystemPrompt, cueNewInstructions: ReasonNewInstructions}

// ignorePrevious matches "ignore all previous instructions", "disregard the
// above", "forget everything you were told" and their variants.
func ignorePrevious(ws []iword, i int) bool {
	sawOrder := false // "previous", "above", "prior"...
	sawEverything := false
	for k := i + 1; k < len(ws) && k <= i+7; k++ {
		x := ws[k].w
		if x == "my" || x == "our" {
			// "Ignore my previous instructions, I meant Vim": the user takes
			// back their own words.
			return false
		}
		if instructionNouns[x] {
			// Broad nouns count only with an order word: "ignore all previous
			// context" is an attack, "ignore the constraints we discussed" may
			// be a user changing their mind. "system" may still lead to
			// "prompt".
			if sawOrder || sawEverything || !weakInstructionNouns[x] {
				return true
			}
			continue
		}
		switch x {
		case "above":
			return true // "disregard the above", "ignore everything above"
		case "previous", "prior", "earlier", "preceding", "former", "before":
			sawOrder = true
			continue
		case "everything", "anything", "all":
			sawEverything = sawEverything || x == "everything"
			continue
		case "told", "taught", "instructed", "programmed", "trained":
			if sawEverything {
				return true
			}
		}
		if !ignoreFillers[x] {
			return false
		}
	}
	return false
}

// reveal matches "reveal your system prompt", "show me your instructions",
// "repeat the text above verbatim".
func reveal(ws []iword, i int) bool {
	owned := false
	for k := i + 1; k < len(ws) && k <= i+6; k++ {
		x := ws[k].w
		if revealOwners[x] {
			owned = true
		}
		if revealObjects[x] {
			return owned
		}
		if x == "above" && ws[i].w == "repeat" {
			return true
		}
		if !revealFillers[x] && !revealOwners[x] {
			return false
		}
	}
	return false
}

// sendAway matches "send all the data to http://...", "forward the
// conversation history to this email".
func sendAway(ws []iword, i int) bool {
	if ws[i].w != "send" && ws[i].w != "share" && ws[i].w != "provide" {
		return false
	}
	sawData := false
	for k := i + 1; k < len(ws) && k <= i+8; k++ {
		x := ws[k].w
		if sensitiveData[x] {
			sawData = true
		}
		if x == "to" && sawData {
			if wordAtIs(ws, k+1, "http", "https", "this", "the", "my", "attacker", "evil", "external", "www") ||
				k+1 < len(ws) && (strings.Contains(ws[k+1].w, "@") || strings.Contains(ws[k+1].w, ".")) {
				return true
			}
		}
	}
	return false
}

// newInstructionObjects follow "new"/"updated" in an attempt to replace the
// agent's instructions ("new instructions:"; [instructions] reads the
// rest).
var newInstructionObjects = wordSet("instruction", "new-instruction-objects")
