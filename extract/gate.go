package extract

import "strings"

// GateResult is the importance gate's verdict on one text.
type GateResult struct {
	Keep bool
	// Reason is "empty", "acknowledgement", "rescued:<marker>" or "ok".
	Reason string
}

// ackWords are the words acknowledgements are made of. A text made only of
// these (up to maxAckWords words) carries nothing worth remembering.
var ackWords = wordSet("gate", "ack-words")

// maxAckWords bounds how long an all-acknowledgement text may be: "thank
// you so much" is still an acknowledgement, a longer run is unusual enough
// to keep.
const maxAckWords = 4

// ackPhrases are acknowledgements that contain a rescue marker and must not
// be rescued by it.
var ackPhrases = wordList("gate", "ack-phrases")

// rescueMarkers keep a short text that would otherwise be dropped: "never
// again", "always pnpm" and "use tabs" are instructions, not small talk.
var rescueMarkers = wordSet("gate", "rescue-markers")

// Gate decides whether a text is worth extracting from. It drops empty text
// and short acknowledgements ("ok", "thanks!", "sure thing", "got it",
// "lol", a lone emoji) unless a rescue marker is present ("always", "never",
// "must", "use", "prefer", "decided", "constraint", "don't", "remember"...).
func Gate(text string) GateResult {
	t := strings.TrimSpace(text)
	if t == "" {
		return GateResult{Keep: false, Reason: "empty"}
	}
	// Only the first words matter for the verdict; a long text is kept.
	words := make([]string, 0, maxAckWords+1)
	for i := 0; i < len(t) && len(words) <= maxAckWords; {
		r, size := decodeRune(t, i)
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i
		for j < len(t) {
			r, size := decodeRune(t, j)
			if !isWordRune(r) && !isApostrophe(r) {
				break
			}
			j += size
		}
		words = append(words, strings.ReplaceAll(strings.ToLower(t[i:j]), "’", "'"))
		i = j
	}
	if len(words) > maxAckWords {
		return GateResult{Keep: true, Reason: "ok"}
	}
	if len(words) == 0 {
		// Emoji, punctuation: "👍", "!!", ":)".
		return GateResult{Keep: false, Reason: "acknowledgement"}
	}
	allAck := true
	for _, w := range words {
		if !ackWords[w] {
			allAck = false
			break
		}
	}
	if !allAck && len(words) > 2 {
		return GateResult{Keep: true, Reason: "ok"}
	}
	joined := strings.Join(words, " ")
	for _, p := range ackPhrases {
		if joined == p {
			return GateResult{Keep: false, Reason: "acknowledgement"}
		}
	}
	for k, w := range words {
		if rescueMarkers[w] {
			// "do not" is one marker; report it as written.
			if w == "not" && (k == 0 || words[k-1] != "do") {
				continue
			}
			if w == "not" {
				w = "do not"
			}
			return GateResult{Keep: true, Reason: "rescued:" + w}
		}
	}
	if allAck {
		return GateResult{Keep: false, Reason: "acknowledgement"}
	}
	// One or two words that are not an acknowledgement ("Neovim.", "Berlin")
	// are an answer; the extractor decides whether it says anything.
	return GateResult{Keep: true, Reason: "ok"}
}
