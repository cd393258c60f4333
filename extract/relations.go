package extract

// IsRelationNoun reports whether word (lower case) names a person by their
// relation to the speaker ("sister", "flatmate", "boss"): "my sister ..."
// speaks of her, not of the speaker.
func IsRelationNoun(word string) bool { return relationNouns[word] }
