package extract

// The tables in this file are read-only after package initialisation. They
// are what lets different phrasings of one personal choice land in one slot:
// "I use Neovim", "my favorite editor is Neovim" and "I switched to Neovim"
// all mean prefers:editor because the lexicon knows Neovim is an editor.

// lexicon maps a lowercased name to its category.
var lexicon = buildLexicon(map[string][]string{
	"editor": {"vim", "neovim", "nvim", "emacs", "vscode", "vs code", "visual studio code",
		"helix", "sublime", "sublime text", "atom", "intellij", "intellij idea", "goland",
		"pycharm", "webstorm", "rider", "clion", "xcode", "android studio", "nano", "zed",
		"cursor", "kakoune", "visual studio", "notepad++", "textmate", "bbedit", "eclipse",
		"netbeans", "spacemacs", "doom emacs", "lazyvim", "vscodium", "rubymine", "phpstorm",
		"fleet", "gedit", "kate", "micro", "lapce", "windsurf", "vi"},
	"programming_language": {"go", "golang", "python", "rust", "typescript", "javascript",
		"java", "kotlin", "swift", "c", "c++", "cpp", "c#", "csharp", "f#", "ruby", "php", "scala",
		"haskell", "elixir", "erlang", "clojure", "ocaml", "zig", "nim", "dart", "lua", "perl",
		"r", "julia", "matlab", "fortran", "cobol", "objective-c", "crystal", "gleam", "elm",
		"racket", "scheme", "common lisp", "lisp", "groovy", "assembly", "solidity", "odin",
		"ts", "js", "python3", "visual basic", "pascal", "delphi", "prolog", "smalltalk", "ada"},
	"package_manager": {"pnpm", "npm", "yarn", "bun", "pip", "pipenv", "poetry", "uv",
		"conda", "cargo", "homebrew", "brew", "apt", "nix", "composer", "bundler", "pipx",
		"chocolatey", "scoop", "winget", "pacman", "dnf", "yum", "hatch", "pdm"},
	"database": {"postgres", "postgresql", "pg", "mysql", "mariadb", "sqlite", "sqlite3",
		"mongodb", "mongo", "redis", "cassandra", "dynamodb", "cockroachdb", "oracle",
		"sql server", "mssql", "couchdb", "neo4j", "clickhouse", "duckdb", "timescaledb",
		"influxdb", "firestore", "planetscale", "tidb", "scylladb", "valkey", "supabase",
		"firebase", "surrealdb", "dgraph", "arangodb", "rethinkdb", "couchbase", "questdb"},
	"shell": {"zsh", "bash", "fish", "nushell", "powershell", "sh", "ksh", "tcsh", "xonsh",
		"oh my zsh", "elvish"},
	"os": {"linux", "macos", "mac os", "osx", "os x", "windows", "ubuntu", "debian", "fedora",
		"arch", "arch linux", "nixos", "freebsd", "openbsd", "manjaro", "linux mint",
		"pop os", "pop!_os", "centos", "rhel", "mac", "chromeos", "gentoo", "void linux",
		"opensuse", "windows 11", "windows 10", "alpine", "rocky linux", "elementary os"},
	"mobile_os": {"ios", "android"},
	"browser": {"firefox", "chrome", "google chrome", "safari", "edge", "microsoft edge",
		"brave", "arc", "opera", "vivaldi", "chromium", "librewolf", "zen browser",
		"tor browser", "qutebrowser", "waterfox"},
	"framework": {"react", "vue", "vue.js", "vuejs", "svelte", "sveltekit", "angular",
		"next.js", "nextjs", "nuxt", "remix", "solid", "solidjs", "astro", "django", "flask",
		"fastapi", "rails", "ruby on rails", "laravel", "spring", "spring boot", "express",
		"express.js", "nestjs", "gin", "echo", "fiber", "phoenix", "htmx", "ember", "qwik",
		"preact", "alpine.js", "symfony", "asp.net", "blazor", "flutter", "react native",
		"jetpack compose", "swiftui", "electron", "tauri", "gatsby", "hono", "chi", "actix",
		"axum", "rocket", "sinatra", "koa", "fastify", "streamlit", "pyramid", "quarkus"},
	"cloud": {"aws", "amazon web services", "gcp", "google cloud", "google cloud platform",
		"azure", "microsoft azure", "digitalocean", "digital ocean", "hetzner", "linode",
		"oracle cloud", "ibm cloud", "ovh", "scaleway", "vultr", "cloudflare", "alibaba cloud"},
	"drink": {"coffee", "tea", "green tea", "black tea", "espresso", "latte", "cappuccino",
		"matcha", "hot chocolate", "beer", "wine", "red wine", "white wine", "juice", "soda",
		"kombucha", "americano", "flat white", "mate", "yerba mate", "chai", "decaf",
		"sparkling water", "cold brew", "herbal tea", "whisky", "whiskey"},
	"terminal": {"iterm", "iterm2", "alacritty", "kitty", "wezterm", "ghostty", "warp",
		"gnome terminal", "windows terminal", "hyper", "konsole", "terminator", "foot",
		"st", "xterm", "terminal.app"},
	"multiplexer":     {"tmux", "screen", "gnu screen", "zellij", "byobu"},
	"version_control": {"git", "mercurial", "hg", "svn", "subversion", "perforce", "jj", "jujutsu", "fossil", "sapling", "pijul"},
	"container":       {"docker", "podman", "containerd", "colima", "orbstack", "rancher desktop"},
	"orchestration":   {"kubernetes", "k8s", "nomad", "docker swarm", "ecs", "openshift", "k3s", "docker compose"},
	"ci": {"github actions", "gitlab ci", "jenkins", "circleci", "travis", "travis ci",
		"buildkite", "drone", "teamcity", "bitbucket pipelines", "azure pipelines", "woodpecker"},
	"build_tool": {"make", "bazel", "gradle", "maven", "cmake", "ninja", "meson", "vite",
		"webpack", "esbuild", "rollup", "parcel", "turbopack", "turborepo", "buck", "buck2",
		"just", "nx", "sbt", "ant", "rspack", "mage", "task", "earthly", "pants", "scons"},
	"test_framework": {"jest", "vitest", "pytest", "mocha", "jasmine", "cypress", "playwright",
		"junit", "rspec", "testify", "ginkgo", "selenium", "unittest", "minitest", "xunit",
		"nunit", "testng", "ava", "tap", "puppeteer"},
	"message_queue": {"kafka", "rabbitmq", "nats", "sqs", "pulsar", "activemq", "redpanda",
		"google pub/sub", "pub/sub", "zeromq", "kinesis", "eventbridge", "sns"},
	"hosting": {"vercel", "netlify", "heroku", "fly.io", "fly", "render", "railway",
		"cloudflare pages", "github pages", "cloudflare workers", "deno deploy"},
	"web_server":    {"nginx", "caddy", "apache", "httpd", "traefik", "haproxy", "envoy", "lighttpd", "iis"},
	"cache":         {"memcached", "varnish", "dragonfly", "dragonflydb"},
	"css_framework": {"tailwind", "tailwindcss", "tailwind css", "bootstrap", "bulma", "chakra ui", "material ui", "mui", "shadcn", "shadcn/ui", "daisyui", "sass", "scss", "less", "styled-components"},
	"orm":           {"prisma", "drizzle", "sqlalchemy", "gorm", "hibernate", "typeorm", "sequelize", "ent", "sqlc", "activerecord", "active record", "django orm", "diesel", "sqlx", "knex", "kysely", "mikro-orm", "peewee", "doctrine"},
	"runtime":       {"node", "node.js", "nodejs", "deno", "jvm", "graalvm", "pypy", "cpython", "wasmtime", "wasmer"},
	"chat":          {"slack", "discord", "microsoft teams", "ms teams", "mattermost", "zulip", "telegram", "whatsapp", "signal", "element", "matrix", "rocket.chat"},
	"issue_tracker": {"jira", "linear", "github issues", "asana", "trello", "clickup", "youtrack", "shortcut", "basecamp", "monday", "gitlab issues", "redmine", "bugzilla"},
	"notes":         {"notion", "obsidian", "evernote", "logseq", "bear", "roam", "roam research", "onenote", "apple notes", "joplin", "org mode", "org-mode", "simplenote", "google keep"},
	"theme":         {"dark mode", "light mode", "dark theme", "light theme", "solarized", "gruvbox", "dracula", "catppuccin", "nord", "tokyo night", "monokai", "one dark", "solarized dark", "solarized light"},
	"indentation":   {"tabs", "spaces", "2 spaces", "4 spaces", "two spaces", "four spaces", "tab"},
	"keyboard_layout": {"dvorak", "qwerty", "colemak", "workman", "azerty", "qwertz",
		"colemak-dh", "colemak dh"},
	"font": {"fira code", "jetbrains mono", "source code pro", "hack", "cascadia code",
		"iosevka", "menlo", "monaco", "consolas", "ubuntu mono", "inconsolata", "berkeley mono",
		"sf mono", "dejavu sans mono", "comic sans"},
	"color": {"red", "blue", "green", "yellow", "orange", "purple", "pink", "black", "white",
		"grey", "gray", "brown", "teal", "turquoise", "navy", "navy blue", "violet", "indigo",
		"cyan", "magenta", "maroon", "beige", "gold", "silver", "lavender", "crimson",
		"emerald", "burgundy", "dark blue", "light blue", "sky blue", "olive", "mint", "coral"},
	"formatter":              {"prettier", "black", "gofmt", "gofumpt", "rustfmt", "clang-format", "biome", "autopep8", "yapf", "isort", "dprint"},
	"linter":                 {"eslint", "ruff", "golangci-lint", "rubocop", "pylint", "flake8", "staticcheck", "clippy", "mypy", "pyright", "shellcheck", "stylelint", "tslint", "oxlint"},
	"observability":          {"prometheus", "grafana", "datadog", "sentry", "new relic", "honeycomb", "opentelemetry", "jaeger", "elk", "splunk", "loki", "dynatrace", "signoz"},
	"search_engine":          {"elasticsearch", "opensearch", "meilisearch", "typesense", "algolia", "solr", "vespa", "tantivy"},
	"data_warehouse":         {"snowflake", "bigquery", "redshift", "databricks", "synapse"},
	"infrastructure_as_code": {"terraform", "pulumi", "ansible", "cloudformation", "opentofu", "chef", "puppet", "saltstack", "crossplane", "cdk", "aws cdk"},
	"auth_provider":          {"auth0", "keycloak", "okta", "clerk", "cognito", "firebase auth", "supertokens", "authentik", "zitadel"},
	"code_host":              {"github", "gitlab", "bitbucket", "codeberg", "gitea", "forgejo", "sourcehut"},
	"api_style":              {"graphql", "rest", "grpc", "trpc", "json-rpc", "soap"},
	"music_player":           {"spotify", "apple music", "youtube music", "tidal", "deezer", "soundcloud"},
	"pet":                    {"dogs", "cats", "dog", "cat"},
	"sport": {"football", "soccer", "basketball", "tennis", "baseball", "cricket", "golf",
		"hockey", "rugby", "volleyball", "badminton", "table tennis", "ping pong", "f1",
		"formula 1", "formula one", "american football", "handball", "squash"},
	"season": {"summer", "winter", "spring", "autumn"},
	"food": {"sushi", "ramen", "pho", "udon", "soba", "tacos", "burritos", "enchiladas",
		"pizza", "pasta", "lasagna", "risotto", "paella", "curry", "thai curry",
		"green curry", "red curry", "butter chicken", "biryani", "dumplings", "dim sum",
		"bibimbap", "kimchi", "falafel", "hummus", "shawarma", "kebab", "kebabs", "burgers",
		"burger", "cheeseburgers", "fried chicken", "barbecue", "bbq", "steak", "pad thai",
		"poke", "tapas", "noodles", "fish and chips", "salad", "salads", "sandwiches",
		"tempura", "gyoza", "pierogi", "goulash", "moussaka", "ceviche", "empanadas",
		"mac and cheese", "pancakes", "waffles", "croissants", "bagels", "ravioli",
		"gnocchi", "carbonara", "spaghetti", "tikka masala", "dal", "laksa", "banh mi"},
	"music": {"jazz", "techno", "folk", "folk music", "hip hop", "hip-hop", "rap", "rock",
		"rock music", "pop", "pop music", "classical", "heavy metal", "classical music",
		"metal", "blues", "country", "country music", "reggae", "punk", "punk rock", "house",
		"house music", "edm", "electronic music", "r&b", "soul", "funk", "indie", "indie rock",
		"k-pop", "opera", "ambient", "disco", "grunge", "bluegrass", "salsa music", "trance",
		"drum and bass", "dubstep", "lo-fi", "lofi", "synthwave", "gospel", "swing",
		"bossa nova", "flamenco", "afrobeat", "reggaeton", "emo", "ska", "hard rock"},
})

// ambiguousHead lists lexicon words that are too common to name a category
// from the first word of a longer phrase ("go" in "go with", "make" in
// "make sure", "c" in "c level").
var ambiguousHead = map[string]bool{
	"go": true, "c": true, "r": true, "make": true, "just": true, "task": true, "ant": true,
	"rest": true, "screen": true, "spring": true, "fly": true, "render": true, "chef": true,
	"puppet": true, "echo": true, "gin": true, "mate": true, "arc": true, "edge": true,
	"atom": true, "hack": true, "foot": true, "st": true, "tap": true, "ava": true,
	"ent": true, "less": true, "monday": true, "element": true, "signal": true, "matrix": true,
	"black": true, "bear": true, "mint": true, "nord": true, "solid": true, "linear": true,
	"shortcut": true, "cursor": true, "warp": true, "kitty": true, "hyper": true, "fish": true,
	"arch": true, "mac": true, "rocket": true, "spaces": true, "tabs": true, "tab": true,
	"micro": true, "fleet": true, "nix": true, "pg": true, "mongo": true, "node": true,
	"red": true, "blue": true, "green": true, "yellow": true, "orange": true, "purple": true,
	"pink": true, "white": true, "grey": true, "gray": true, "brown": true, "gold": true,
	"silver": true, "olive": true, "coral": true, "navy": true, "dark": true, "light": true,
	"sky": true, "dogs": true, "cats": true, "dog": true, "cat": true, "coffee": true,
	"tea": true, "wine": true, "beer": true, "juice": true, "soda": true, "sparkling": true,
	"cold": true, "herbal": true, "hot": true, "summer": true, "winter": true, "autumn": true,
	"google": true, "microsoft": true, "apple": true, "amazon": true, "table": true,
	"american": true, "formula": true, "apache": true, "docker": true, "github": true,
	"gitlab": true, "windows": true, "visual": true, "ruby": true, "sql": true, "ms": true,
	"deno": true, "jetbrains": true, "source": true, "ubuntu": true, "sf": true, "tor": true,
	"tailwind": true, "material": true, "chakra": true, "oh": true, "common": true,
	"doom": true, "android": true, "react": true, "spring boot": true, "sublime": true,
	"firebase": true, "cloudflare": true, "solarized": true, "one": true, "tokyo": true,
	"pop": true, "linux": true, "void": true, "rocky": true, "elementary": true,
	"vs": true, "roam": true, "org": true, "zen": true, "new": true, "aws": true,
	"azure": true, "alibaba": true, "oracle": true, "digital": true, "ibm": true,
	"bitbucket": true, "gnu": true, "rancher": true, "yerba": true, "flat": true,
	"dark blue": true, "light blue": true, "2": true, "4": true, "two": true, "four": true,
	"comic": true, "berkeley": true, "dejavu": true, "fira": true, "cascadia": true,
	"youtube": true, "travis": true, "azure pipelines": true, "colemak": true,
	"thai": true, "butter": true, "fried": true, "dim": true,
	"pad": true, "banh": true, "heavy": true, "country": true, "house": true, "soul": true,
	"rock": true, "folk": true, "classical": true, "electronic": true,
	"punk": true, "indie": true, "drum": true, "hard": true, "bossa": true, "salsa": true,
	"swing": true, "metal": true,
}

func buildLexicon(byCat map[string][]string) map[string]string {
	m := make(map[string]string, 800)
	for cat, names := range byCat {
		for _, n := range names {
			if prev, ok := m[n]; ok && prev != cat {
				// Listed under two kinds: CategoryOf reads the name's
				// case (ambiguousNames); the lexicon keeps the tool.
				c, known := ambiguousNames[n]
				if !known {
					panic("extract: lexicon lists " + n + " under " + prev + " and " + cat + "; add it to ambiguousNames")
				}
				m[n] = c.tool
				continue
			}
			m[n] = cat
		}
	}
	return m
}

// ambiguousNames settles the names the lexicon lists under two kinds: a
// capitalised name is the tool ("I use Black", "we moved to Spring",
// "Opera is my browser"), a lower-case one the everyday thing ("I like
// black", "I love spring", "I love the opera"). No map order decides.
var ambiguousNames = map[string]struct{ tool, other string }{
	"black":  {"formatter", "color"},
	"opera":  {"browser", "music"},
	"spring": {"framework", "season"},
}

// categorySynonyms maps category nouns (and the gerunds used in "we use X
// for Y") to one canonical category, so "coding language" and "programming
// language" share a slot.
var categorySynonyms = buildSynonyms(map[string][]string{
	"editor": {"editor", "text editor", "code editor", "ide", "coding editor",
		"development environment", "editing", "text editing", "code editing"},
	"programming_language": {"language", "programming language", "coding language", "lang",
		"prog lang", "language for coding", "language to code in", "dev language",
		"scripting language", "backend language"},
	"package_manager": {"package manager", "js package manager", "node package manager",
		"package management", "dependency manager", "dependency management", "packages",
		"dependencies"},
	"database": {"database", "db", "datastore", "data store", "primary database",
		"rdbms", "sql database", "persistence", "storage", "data storage", "database engine"},
	"shell":       {"shell", "login shell", "command shell", "unix shell"},
	"os":          {"os", "operating system", "desktop os", "platform os"},
	"mobile_os":   {"mobile os", "phone os", "mobile operating system"},
	"browser":     {"browser", "web browser", "internet browser"},
	"framework":   {"framework", "web framework", "frontend framework", "front-end framework", "ui framework", "js framework", "javascript framework", "backend framework", "front end framework", "ui library"},
	"cloud":       {"cloud", "cloud provider", "cloud platform", "cloud vendor"},
	"drink":       {"drink", "beverage", "hot drink", "morning drink", "hot beverage"},
	"terminal":    {"terminal", "terminal emulator", "terminal app", "term"},
	"multiplexer": {"multiplexer", "terminal multiplexer"},
	"version_control": {"vcs", "version control", "version control system", "source control",
		"scm", "revision control"},
	"container":     {"container runtime", "container engine", "containers", "containerization", "container tool"},
	"orchestration": {"orchestrator", "container orchestrator", "orchestration", "container orchestration"},
	"ci":            {"ci", "ci system", "ci provider", "ci/cd", "ci server", "ci pipeline", "continuous integration", "cicd", "ci cd", "pipelines", "pipeline"},
	"build_tool":    {"build tool", "build system", "bundler", "builds", "building", "bundling", "task runner"},
	"test_framework": {"test framework", "testing framework", "test runner", "testing",
		"tests", "unit tests", "unit testing", "e2e tests", "end to end tests", "test suite"},
	"message_queue": {"message queue", "queue", "message broker", "broker", "messaging",
		"queueing", "queuing", "event bus", "events", "event streaming", "queues"},
	"hosting": {"host", "hosting", "hosting provider", "deployment", "deploys", "deploying",
		"deployments", "deploy target", "deployment target", "hosting platform"},
	"web_server":      {"web server", "reverse proxy", "proxy", "load balancer", "webserver"},
	"cache":           {"cache", "caching", "cache layer", "caching layer", "session store"},
	"css_framework":   {"css framework", "css", "styling", "styles", "component library"},
	"orm":             {"orm", "database layer", "data access", "query builder"},
	"runtime":         {"runtime", "js runtime", "javascript runtime"},
	"chat":            {"chat app", "chat", "messenger", "messaging app", "team chat"},
	"issue_tracker":   {"issue tracker", "tracker", "project management tool", "ticketing", "ticket tracker", "issues", "bug tracker", "project management", "tickets"},
	"notes":           {"notes app", "note-taking app", "note taking app", "note app", "notes", "note-taking", "note taking", "notebook"},
	"theme":           {"theme", "color scheme", "colour scheme", "colorscheme", "editor theme"},
	"indentation":     {"indentation", "indent style", "indent", "indents", "indenting"},
	"keyboard_layout": {"keyboard layout", "layout", "keyboard"},
	"font":            {"font", "coding font", "editor font", "monospace font", "terminal font", "typeface"},
	"color":           {"color", "colour"},
	"movie":           {"movie", "film"},
	"tv_show":         {"tv show", "show", "series", "tv series"},
	"formatter":       {"formatter", "code formatter", "formatting"},
	"linter":          {"linter", "linting", "static analysis", "lint", "type checker", "type checking"},
	"observability":   {"monitoring", "monitoring tool", "observability", "metrics", "tracing", "error tracking", "logging", "alerting", "dashboards"},
	"search_engine":   {"search engine", "search", "full-text search", "full text search", "search index"},
	"data_warehouse": {"warehouse", "data warehouse", "analytics warehouse", "analytics",
		"data warehousing"},
	"infrastructure_as_code": {"iac", "infrastructure as code", "infra", "infrastructure",
		"provisioning", "config management", "configuration management"},
	"auth_provider": {"auth", "authentication", "auth provider", "identity provider", "login", "sso", "identity"},
	"code_host":     {"code host", "git host", "git hosting", "code hosting", "repo host", "forge"},
	"api_style":     {"api style", "api", "apis", "api layer", "api protocol"},
	"music_player":  {"music app", "music player", "music service", "streaming service"},
	"food":          {"food", "dish", "meal", "cuisine", "dinner", "lunch", "snack", "comfort food"},
	"music":         {"music", "genre", "music genre", "musical genre", "band music"},
	"pet":           {"pet", "animal"},
	"sport":         {"sport"},
	"season":        {"season", "time of year"},
})

func buildSynonyms(byCat map[string][]string) map[string]string {
	m := make(map[string]string, 300)
	for cat, names := range byCat {
		for _, n := range names {
			m[n] = cat
		}
	}
	return m
}

// categoryQualifiers are words in a category phrase that do not change the
// category: "my favorite text editor", "preferred shell", "go-to language".
var categoryQualifiers = []string{"my", "our", "the", "a", "an", "its", "their", "his", "her",
	"favorite", "favourite", "preferred", "go-to", "go to", "goto", "default", "main", "primary",
	"usual", "daily", "current", "personal", "own", "all-time", "all time", "absolute",
	"number one", "#1", "new", "everyday", "regular", "chosen", "standard", "only", "top",
	"most", "best", "very", "fav", "fave", "preferred"}

// categoryWords renders a few canonical categories more naturally in content
// sentences than the underscores-to-spaces default.
var categoryWords = map[string]string{
	"os": "operating system", "ci": "CI system", "tv_show": "TV show",
	"infrastructure_as_code": "infrastructure-as-code tool", "api_style": "API style",
	"code_host": "code host", "mobile_os": "mobile operating system",
	"observability": "observability tool", "hosting": "hosting platform",
	"notes": "notes app", "cloud": "cloud provider", "multiplexer": "terminal multiplexer", "chat": "chat app",
	"pet": "pet", "theme": "theme", "issue_tracker": "issue tracker",
	"container": "container tool", "orchestration": "orchestrator", "cache": "cache",
	"message_queue": "message queue", "music_player": "music service",
}

// relationNouns are people the speaker talks about ("my sister", "my boss").
// Their preferences belong to them, never to the speaker.
var relationNouns = set("sister", "brother", "mother", "mom", "mum", "father", "dad", "wife",
	"husband", "partner", "spouse", "girlfriend", "boyfriend", "son", "daughter", "kid", "kids",
	"child", "children", "boss", "manager", "friend", "friends", "colleague", "colleagues",
	"coworker", "co-worker", "coworkers", "teammate", "teammates", "roommate", "flatmate",
	"cousin", "uncle", "aunt", "grandma", "grandmother", "grandpa", "grandfather", "neighbor",
	"neighbour", "mentor", "cofounder", "co-founder", "landlord", "fiance", "fiancé",
	"fiancée", "niece", "nephew", "sibling", "siblings", "parents", "lead", "client",
	"clients", "customer", "customers", "family", "ex", "ex-wife", "ex-husband", "mentee",
	"report", "reports", "intern", "assistant", "doctor", "therapist", "stepmom", "stepdad",
	"grandparents", "twin", "bestie", "buddy", "pal", "mate", "wife's", "husband's")

// relationAdjectives qualify a relation without changing who it is.
var relationAdjectives = set("best", "older", "younger", "little", "big", "elder", "eldest", "youngest",
	"oldest", "baby", "twin", "new", "old", "former", "current", "direct", "tech", "team",
	"engineering", "product", "project", "line", "other", "dear", "late")

// teamNouns after "my"/"our"/"the"/"this" mean the project or team itself.
var teamNouns = set("team", "company", "project", "repo", "repository", "codebase", "startup",
	"org", "organization", "organisation", "app", "service", "product", "stack", "group",
	"department", "squad", "monorepo", "system", "platform", "backend", "frontend", "api",
	"infrastructure", "infra", "website", "site", "code", "build", "pipeline", "cli",
	"server", "library", "package", "tool", "engineering team", "dev team")

// roleHeads are nouns that end a job-title phrase ("senior backend
// engineer", "product manager"); "I'm a <role>" needs one, so "I'm a bit
// tired" never becomes a role.
var roleHeads = set("engineer", "developer", "dev", "programmer", "coder", "designer",
	"manager", "director", "scientist", "researcher", "analyst", "architect", "consultant",
	"founder", "cofounder", "co-founder", "ceo", "cto", "cfo", "coo", "cpo", "ciso", "vp",
	"lead", "intern", "student", "teacher", "professor", "lecturer", "doctor", "physician",
	"nurse", "lawyer", "attorney", "accountant", "writer", "author", "journalist", "artist",
	"musician", "photographer", "chef", "cook", "sre", "devops", "administrator", "admin",
	"sysadmin", "dba", "tester", "pm", "freelancer", "contractor", "entrepreneur", "owner",
	"maintainer", "contributor", "mathematician", "physicist", "chemist", "biologist",
	"economist", "statistician", "pharmacist", "dentist", "therapist", "psychologist",
	"pilot", "mechanic", "electrician", "plumber", "carpenter", "farmer", "salesperson",
	"marketer", "recruiter", "specialist", "technician", "officer", "executive",
	"secretary", "clerk", "librarian", "veterinarian", "vet", "paramedic", "firefighter",
	"soldier", "retiree", "translator", "editor", "producer", "illustrator", "animator",
	"strategist", "advisor", "adviser", "coach", "trainer", "instructor", "tutor",
	"surgeon", "psychiatrist", "economist", "banker", "trader", "investor", "partner",
	"president", "chairman", "principal", "staffer", "hacker", "modeler", "copywriter",
	"operator", "planner", "coordinator", "supervisor", "representative", "agent",
	"associate", "fellow", "postdoc", "phd", "undergrad", "undergraduate", "graduate",
	"apprentice", "understudy", "barista", "waiter", "waitress", "cashier", "driver",
	"mle", "swe", "sde", "qa", "ux", "ui", "data scientist", "teacher's", "estimator",
	"auditor", "actuary", "underwriter", "pharmacologist", "epidemiologist", "geologist",
	"astronomer", "linguist", "historian", "philosopher", "sociologist", "anthropologist",
	"ecologist", "biochemist", "neuroscientist", "radiologist", "cardiologist",
	"pediatrician", "dietitian", "nutritionist", "midwife", "optometrist", "chiropractor",
	"craftsman", "welder", "machinist", "builder", "contractor", "homemaker", "caregiver")

// diets are answers to "I'm ___" that describe what the speaker eats.
var diets = set("vegetarian", "vegan", "pescatarian", "pescetarian", "keto", "gluten-free",
	"lactose-intolerant", "lactose intolerant", "kosher", "halal", "paleo", "flexitarian",
	"dairy-free", "plant-based")

// notNames are capitalised words after "I'm" that are not names: demonyms,
// adjectives, states, days and months ("I'm English", "I'm Sorry", "I'm Free").
var notNames = set("english", "american", "british", "french", "german", "spanish", "italian",
	"portuguese", "chinese", "japanese", "korean", "indian", "canadian", "australian",
	"dutch", "swedish", "norwegian", "danish", "finnish", "polish", "russian", "ukrainian",
	"brazilian", "mexican", "argentinian", "irish", "scottish", "welsh", "greek", "turkish",
	"egyptian", "nigerian", "kenyan", "israeli", "iranian", "pakistani", "vietnamese",
	"thai", "filipino", "indonesian", "swiss", "austrian", "belgian", "czech", "hungarian",
	"romanian", "chilean", "colombian", "peruvian", "cuban", "jewish", "christian",
	"muslim", "catholic", "hindu", "buddhist", "atheist", "european", "african", "asian",
	"latino", "latina", "hispanic", "arab", "persian", "european", "british-", "kiwi",
	"aussie", "canadian", "texan", "californian", "new", "not", "so", "very", "really",
	"just", "also", "still", "here", "back", "done", "ready", "sorry", "sure", "fine", "good",
	"great", "ok", "okay", "happy", "glad", "excited", "tired", "busy", "free", "available",
	"afraid", "confused", "lost", "stuck", "curious", "interested", "aware", "able",
	"unable", "going", "trying", "thinking", "looking", "working", "using", "living",
	"learning", "planning", "considering", "leaning", "hoping", "wondering", "always",
	"never", "now", "currently", "actually", "probably", "maybe", "definitely", "from",
	"based", "in", "at", "on", "a", "an", "the", "with", "into", "over", "off", "out",
	"home", "away", "late", "early", "new", "old", "right", "wrong", "correct", "certain",
	"positive", "convinced", "impressed", "amazed", "surprised", "thankful", "grateful",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december", "ai", "human", "god", "batman",
	"afk", "ooo", "online", "offline", "remote", "retired", "single", "married",
	"divorced", "pregnant", "sick", "ill", "well", "better", "worse", "bored", "hungry",
	"thirsty", "sleepy", "awake", "alive", "dead", "serious", "kidding", "joking",
	"honest", "responsible", "fluent", "native", "bilingual", "vegan", "vegetarian",
	"allergic", "hooked", "obsessed", "addicted", "fond", "keen", "big", "huge", "major")

// pronounValues can never be a slot's value: "I love this", "I like that
// idea", "I work for myself".
var pronounValues = set("it", "this", "that", "these", "those", "them", "him", "her", "you",
	"me", "us", "myself", "yourself", "ourselves", "themselves", "himself", "herself",
	"everything", "something", "anything", "nothing", "everyone", "someone", "anyone",
	"one", "ones", "there", "here", "what", "which", "who", "whom", "whatever", "so", "too",
	"both", "either", "neither", "all", "some", "any", "each", "other", "others", "such",
	"yours", "mine", "ours", "theirs", "his", "hers", "its", "lot", "much", "more",
	"less", "enough", "way", "stuff", "things", "thing", "how", "when", "where", "why",
	"whether", "if", "home", "night", "nights", "weekends", "noon", "midnight", "least",
	"first", "once", "random", "times", "the", "a", "an", "my", "your", "our", "their",
	"not", "no", "again", "well", "fun", "now", "then", "today", "tomorrow", "yesterday", "tonight", "being", "doing",
	"having", "getting", "going", "making", "taking", "seeing", "hearing", "knowing",
	"thinking", "saying", "telling", "trying", "it's", "that's")

// subjectStopWords are capitalised sentence openers that are never a named
// subject ("Everyone uses Slack" is not about a project called Everyone).
var subjectStopWords = set("i", "we", "you", "he", "she", "they", "it", "this", "that",
	"these", "those", "there", "here", "everyone", "everybody", "someone", "somebody",
	"nobody", "no", "people", "most", "many", "some", "all", "each", "every", "my", "our",
	"your", "his", "her", "their", "its", "the", "a", "an", "who", "what", "which", "also",
	"and", "but", "so", "then", "now", "actually", "please", "maybe", "probably", "today",
	"yesterday", "tomorrow", "everything", "nothing", "something", "anyone", "anything",
	"nowadays", "honestly", "sometimes", "usually", "often", "always", "never", "one",
	"if", "when", "while", "because", "since", "although", "though", "as", "after",
	"before", "let", "just", "only", "even", "not", "ok", "okay", "yes", "yeah", "well",
	"oh", "hey", "hi", "hello", "thanks", "thank", "sure", "great", "perhaps", "again",
	"currently", "recently", "lately", "overall", "anyway", "basically", "generally",
	"typically", "personally", "ideally", "hopefully", "unfortunately", "luckily",
	"apparently", "clearly", "obviously", "seriously", "literally", "really", "very",
	"definitely", "certainly", "either", "neither", "both", "such", "other", "another",
	"mine", "yours", "ours", "theirs", "me", "us", "them", "him", "user", "users",
	"agent", "assistant", "claude", "chatgpt", "gpt", "model", "ai", "bot", "team")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
