package sqlite

// NamespaceTables is namespaceTables for the package's external tests.
var NamespaceTables = namespaceTables
