/*
 * test_data.h - deterministic column-like text for the tests: the codec unit
 * tests (test_codec.c), the fuzz seeds (test/fuzz/make_seeds.c) and the GPU
 * emulation tests (test/gpu/test_gpu.c).
 *
 * Each column imitates one kind of text a database stores (e-mail
 * addresses, URLs, names, TPC-H comments, UUIDs, Chinese text, ...), from a
 * fixed seed of its own, with its own PRNG (splitmix64), so that the same
 * column is the same bytes on every machine, whatever else the tests
 * generate and in whatever order.  The vocabularies below are made up or
 * common words; no third-party data set is copied here.
 *
 *     td_gen g;
 *     uint8_t *buf = malloc(TD_MAX_VALUE);
 *     td_gen_init(&g, TD_EMAIL);
 *     for (size_t i = 0; i < td_column_values(TD_EMAIL); i++)
 *         use(buf, td_gen_next(&g, buf));
 *
 * Values are valid UTF-8 and hold no line feed, so a column can also be
 * written one value a line.  A few columns have empty values; TD_LONG has
 * values of up to TD_MAX_VALUE bytes that span many 4 KiB segments.
 *
 * C11 and C++ (static inline functions only).  Changing what a column
 * generates changes what the tests see: test_generated_columns in
 * test_codec.c pins a hash of every column, update it with the change.
 */
#ifndef GSST_TEST_DATA_H
#define GSST_TEST_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TD_MAX_VALUE (96 * 1024)	/* the longest value of any column */

typedef enum td_column
{
	TD_EMAIL,					/* anna.schmidt84@gmail.com */
	TD_URL,						/* https://www.example.com/docs/index.html?id=42 */
	TD_NAME,					/* person names, some accented */
	TD_CITY,					/* city names: a list and made-up ones, some non-Latin */
	TD_L_COMMENT,				/* TPC-H-like short comments: random words, 10-43 bytes */
	TD_PS_COMMENT,				/* TPC-H-like long comments, 49-198 bytes */
	TD_CUSTOMER,				/* Customer#000012345 */
	TD_CODE,					/* phone numbers, order codes, dates, amounts */
	TD_HEX,						/* hex strings of 1-16 digits */
	TD_UUID,					/* version 4 UUIDs */
	TD_GENOME,					/* 10 bases of ACGT */
	TD_CHINESE,					/* Chinese sentences */
	TD_JAPANESE,				/* Japanese: kanji, hiragana, katakana */
	TD_ACCENTED,				/* European text with accents (German, French, Polish, ...) */
	TD_LOCATION,				/* street addresses with postcode and city */
	TD_WIKI,					/* Wikipedia-like titles with underscores */
	TD_LONG,					/* short values and some long ones (4 KB to 96 KB) */
	TD_SPARSE,					/* mostly empty or one-character values */
	TD_NCOLUMNS
} td_column;

/* ---- the PRNG: splitmix64 ---- */

typedef struct td_rng
{
	uint64_t	state;
} td_rng;

static inline uint64_t
td_next(td_rng *r)
{
	uint64_t	z = (r->state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static inline uint64_t
td_below(td_rng *r, uint64_t n)
{
	return td_next(r) % n;
}

/* In [lo, hi]. */
static inline uint64_t
td_range(td_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + td_below(r, hi - lo + 1);
}

/* Skewed towards 0: the first entries of a list are the common ones. */
static inline uint64_t
td_skewed(td_rng *r, uint64_t n)
{
	uint64_t	a = td_below(r, n),
				b = td_below(r, n);

	return a < b ? a : b;
}

/* true with probability num / den */
static inline int
td_chance(td_rng *r, uint64_t num, uint64_t den)
{
	return td_below(r, den) < num;
}

/* ---- writing a value ---- */

typedef struct td_buf
{
	uint8_t    *p;
	size_t		n;
	size_t		cap;
} td_buf;

static inline void
td_putc(td_buf *b, char c)
{
	if (b->n < b->cap)
		b->p[b->n++] = (uint8_t) c;
}

static inline void
td_puts(td_buf *b, const char *s)
{
	size_t		l = strlen(s);

	if (l > b->cap - b->n)
		l = b->cap - b->n;
	memcpy(b->p + b->n, s, l);
	b->n += l;
}

/* v in decimal, zero-padded to width digits (0: no padding). */
static inline void
td_putnum(td_buf *b, uint64_t v, int width)
{
	char		tmp[24];
	int			k = 0;

	do
	{
		tmp[k++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (k < width)
		tmp[k++] = '0';
	while (k > 0)
		td_putc(b, tmp[--k]);
}

static inline void
td_puthex(td_buf *b, td_rng *r, int digits, int upper)
{
	const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	for (int i = 0; i < digits; i++)
		td_putc(b, d[td_below(r, 16)]);
}

/* A lower-case copy of s (ASCII only). */
static inline void
td_puts_lower(td_buf *b, const char *s)
{
	for (; *s; s++)
		td_putc(b, (char) (*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s));
}

/* Drop a partial UTF-8 character at the end, left by a cut at b->cap. */
static inline void
td_trim_utf8(td_buf *b)
{
	size_t		i = b->n,
				k = 0;

	while (i > 0 && k < 4 && (b->p[i - 1] & 0xC0) == 0x80)
	{
		i--;
		k++;
	}
	if (i == 0 || b->p[i - 1] < 0x80)
		return;
	{
		uint8_t		lead = b->p[i - 1];
		size_t		need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;

		if (k < need)
			b->n = i - 1;
	}
}

#define TD_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define TD_PICK(r, a) ((a)[td_below((r), TD_COUNT(a))])
#define TD_PICK_SKEWED(r, a) ((a)[td_skewed((r), TD_COUNT(a))])

/* The n-th character of a string of 3-byte UTF-8 characters. */
static inline void
td_put_char3(td_buf *b, const char *chars, size_t index)
{
	for (int k = 0; k < 3; k++)
		td_putc(b, chars[3 * index + k]);
}

static inline void
td_put_random_char3(td_buf *b, td_rng *r, const char *chars)
{
	td_put_char3(b, chars, td_skewed(r, strlen(chars) / 3));
}

/* ---- vocabularies ---- */

static const char *const td_first_names[] = {
	"James", "Mary", "John", "Anna", "Robert", "Linda", "Michael", "Maria", "David", "Sarah",
	"William", "Laura", "Richard", "Emma", "Thomas", "Julia", "Daniel", "Sophie", "Peter",
	"Olivia", "Paul", "Lisa", "Mark", "Nina", "Steven", "Eva", "Andrew", "Clara", "Kevin",
	"Alice", "Brian", "Carol", "George", "Diana", "Frank", "Helen", "Henry", "Irene", "Jack",
	"Karen", "Lucas", "Monica", "Oscar", "Paula", "Victor", "Rita", "Walter", "Sandra",
	"Hans", "Greta", "Pierre", "Claire", "Marco", "Giulia", "Jan", "Katarzyna", "Lars",
	"Ingrid", "Pedro", "Lucia", "Ahmed", "Fatima", "Ivan", "Olga", "Wei", "Mei", "Hiroshi",
	"Yuki", "Raj", "Priya", "Kofi", "Amara", "Mateo", "Valentina", "Noah", "Chloe", "Liam",
	"Mia", "Ethan", "Zoe",
};

/* accented and non-ASCII first names, for the name columns only */
static const char *const td_first_names_intl[] = {
	"José", "François", "Zoë", "Björn", "Łukasz", "Søren", "Núria", "Renée", "Jürgen",
	"Agnès", "Åsa", "Dóra", "Ömer", "Şebnem", "Tomáš", "Małgorzata", "Jiří", "Ærøe",
	"Håkon", "Inês", "Žaneta", "Ольга", "Дмитрий", "Γιώργος",
};

static const char *const td_last_names[] = {
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson",
	"Taylor", "Thomas", "Moore", "Martin", "Jackson", "Thompson", "White", "Harris", "Clark",
	"Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Green",
	"Baker", "Adams", "Nelson", "Hill", "Campbell", "Mitchell", "Roberts", "Carter", "Phillips",
	"Evans", "Turner", "Parker", "Collins", "Edwards", "Stewart", "Morris", "Murphy", "Cook",
	"Rogers", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker",
	"Dubois", "Moreau", "Laurent", "Rossi", "Russo", "Ferrari", "Esposito", "Kowalski",
	"Nowak", "Jansen", "de Vries", "Andersen", "Nielsen", "Hansen", "Novak", "Horvat",
	"Ivanov", "Petrov", "Kim", "Lee", "Park", "Chen", "Wang", "Li", "Zhang", "Tanaka",
	"Suzuki", "Sato", "Patel", "Singh", "Kumar", "Silva", "Santos", "Oliveira", "Costa",
	"Gonzalez", "Rodriguez", "Hernandez", "Lopez", "Martinez", "Perez", "Sanchez",
};

static const char *const td_last_names_intl[] = {
	"Müller", "García", "Núñez", "Łukaszewicz", "Østergaard", "Nguyễn", "Dvořák", "Šimić",
	"Özdemir", "Gómez", "Jiménez", "Lefèvre", "Böhm", "Groß", "Wójcik", "Håland",
	"Sørensen", "Çelik", "Kovács", "Иванов", "Петрова", "Παπαδόπουλος",
};

static const char *const td_mail_domains[] = {
	"gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "gmx.de", "web.de", "aol.com",
	"icloud.com", "mail.ru", "yahoo.co.jp", "company.co.uk", "example.org", "example.com",
	"orange.fr", "libero.it", "qq.com", "163.com", "protonmail.com", "university.edu",
	"cs.university.edu", "posteo.de", "t-online.de", "free.fr", "naver.com",
};

static const char *const td_web_hosts[] = {
	"www.example.com", "www.postgresql.org", "en.wikipedia.org", "github.com",
	"www.amazon.com", "news.ycombinator.com", "docs.python.org", "www.youtube.com",
	"api.example.net", "blog.example.io", "shop.example.de", "www.bbc.co.uk", "maps.example.com",
	"cdn.static-content.net", "www.nytimes.com", "forum.example.fr", "www.tagesschau.de",
	"stackoverflow.com", "www.reddit.com", "images.example.com",
};

static const char *const td_url_words[] = {
	"docs", "current", "index", "search", "products", "category", "blog", "news", "article",
	"user", "users", "profile", "static", "css", "js", "images", "api", "v1", "v2", "download",
	"release", "wiki", "questions", "tag", "item", "cart", "checkout", "help", "about",
	"contact", "2019", "2020", "2021", "2022", "2023", "2024", "sql-select", "main",
	"watch", "comments", "archive", "en", "de", "fr",
};

static const char *const td_url_exts[] = {".html", "", "", ".php", ".htm", "/", ".css", ".js", ".png", ".aspx", ".json"};

static const char *const td_url_params[] = {"id", "q", "lang", "page", "ref", "sort", "v", "utm_source", "session", "tab"};

/* TPC-H comment vocabulary (dbgen's grammar words) */
static const char *const td_tpch_nouns[] = {
	"foxes", "ideas", "theodolites", "pinto beans", "instructions", "dependencies", "excuses",
	"platelets", "asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs",
	"frets", "dinos", "attainments", "somas", "Tiresias'", "patterns", "forges", "braids",
	"hockey players", "frays", "warhorses", "dugouts", "notornis", "epitaphs", "pearls",
	"tithes", "waters", "orbits", "gifts", "sheaves", "depths", "sentiments", "decoys",
	"realms", "pains", "grouches", "escapades", "packages", "requests", "accounts", "deposits",
};

static const char *const td_tpch_verbs[] = {
	"sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect",
	"integrate", "maintain", "nod", "was", "lose", "sublate", "solve", "thrash", "promise",
	"engage", "hinder", "print", "x-ray", "breach", "eat", "grow", "impress", "mold", "poach",
	"serve", "run", "dazzle", "snooze", "doze", "unwind", "kindle", "play", "hang", "believe",
	"doubt", "wake", "integrate",
};

static const char *const td_tpch_adjectives[] = {
	"furious", "sly", "careful", "blithe", "quick", "fluffy", "slow", "quiet", "ruthless",
	"thin", "close", "dogged", "daring", "brave", "stealthy", "permanent", "enticing", "idle",
	"busy", "regular", "final", "ironic", "even", "bold", "silent", "express", "special",
	"pending", "unusual",
};

static const char *const td_tpch_adverbs[] = {
	"sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly",
	"fluffily", "slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly",
	"bravely", "stealthily", "permanently", "enticingly", "idly", "busily", "regularly",
	"finally", "ironically", "evenly", "boldly", "silently",
};

static const char *const td_tpch_prepositions[] = {
	"about", "above", "according to", "across", "after", "against", "along", "alongside of",
	"among", "around", "at", "atop", "before", "behind", "beneath", "beside", "besides",
	"between", "beyond", "by", "despite", "during", "except", "for", "from", "in place of",
	"inside", "instead of", "into", "near", "of", "on", "outside", "over", "past", "since",
	"through", "throughout", "to", "toward", "under", "until", "up", "upon", "without", "with",
	"within",
};

static const char *const td_tpch_auxiliaries[] = {
	"do", "may", "might", "shall", "will", "would", "can", "could", "should", "ought to",
	"must", "will have to", "shall have to", "could have to", "should have to", "must have to",
	"need to", "try to",
};

static const char *const td_tpch_terminators[] = {".", ".", ".", ";", ":", "?", "!", "--"};

static const char *const td_cities[] = {
	"London", "Paris", "Berlin", "Madrid", "Rome", "Vienna", "Amsterdam", "Brussels",
	"Prague", "Warsaw", "Budapest", "Lisbon", "Dublin", "Oslo", "Stockholm", "Helsinki",
	"Copenhagen", "Athens", "New York", "Los Angeles", "Chicago", "Houston", "San Francisco",
	"Toronto", "Montreal", "Mexico City", "Buenos Aires", "Lima", "Bogotá", "São Paulo",
	"Rio de Janeiro", "Zürich", "Genève", "München", "Köln", "Düsseldorf", "Frankfurt am Main",
	"Kraków", "Łódź", "Gdańsk", "Malmö", "Göteborg", "Århus", "Reykjavík", "Córdoba",
	"Málaga", "Sevilla", "Besançon", "Orléans", "Nîmes", "Brno", "České Budějovice",
	"Cluj-Napoca", "İstanbul", "Москва", "Санкт-Петербург", "Київ", "Αθήνα", "東京", "大阪",
	"京都", "北京", "上海", "广州", "서울", "부산", "Sydney", "Melbourne", "Auckland",
	"Cape Town", "Nairobi", "Lagos", "Cairo", "Mumbai", "Delhi", "Bangalore", "Singapore",
	"Bangkok", "Jakarta", "Manila", "Hanoi", "Ho Chi Minh City", "Tel Aviv", "Dubai",
};

static const char *const td_city_heads[] = {
	"Nor", "Sud", "West", "Ost", "Ash", "Brad", "Cam", "Dun", "Elm", "Fair", "Glen", "Hamp",
	"Kings", "Lang", "Mar", "New", "Old", "Port", "Red", "Stan", "Wal", "Wood", "Bel", "Ber",
	"Char", "Lin", "Mont", "Roch", "San", "Vil", "Wies", "Frei", "Hildes", "Bad ", "Saint-",
	"Sankt ", "Sainte-", "Villa ",
};

static const char *const td_city_middles[] = {
	"", "", "", "ing", "er", "en", "ham", "ley", "mar", "lin", "ro", "wick", "ches", "bridge",
	"al", "brook", "ter", "den", "an",
};

static const char *const td_city_tails[] = {
	"ton", "ville", "burg", "field", "ford", "stadt", "heim", "dorf", "bury", "mouth",
	"ville", "polis", "court", "haven", "ington", "wood", "by", "hausen", "berg", "sund",
	"ów", "ice", "ovo", "sk", "grad", "furt", "thal", "ière", "ac", "ago",
};

static const char *const td_street_names[] = {
	"Main", "Baker", "High", "Church", "Park", "Oak", "Maple", "Cedar", "Elm", "Washington",
	"Lake", "Hill", "Station", "Mill", "School", "Victoria", "King", "Queen", "Bahnhof",
	"Haupt", "Garten", "Schiller", "Goethe", "Linden", "Rue de la Paix", "Rue Victor Hugo",
	"Avenida Paulista", "Via Roma", "Calle Mayor", "Sunset", "Broadway", "Mühlen", "Königs",
	"Łąkowa", "Piękna", "Sørlandet",
};

static const char *const td_street_types[] = {
	" Street", " Avenue", " Road", " Lane", " Drive", " Boulevard", "straße", "weg", "gasse",
	" Place", " Way", "", " Court",
};

static const char *const td_wiki_nouns[] = {
	"History", "Battle", "List", "Geography", "Economy", "Politics", "Music", "Culture",
	"Church", "Railway_station", "University", "River", "Mountain", "Album", "Song", "Film",
	"Novel", "Football_club", "Airport", "Museum", "Castle", "Bridge", "Treaty", "Election",
	"Language", "Dynasty", "Cathedral", "Lighthouse", "Symphony", "Opera", "Algorithm",
	"Theorem", "Protein", "Galaxy", "Species", "Festival", "Television_series", "Video_game",
};

static const char *const td_wiki_qualifiers[] = {
	"(film)", "(album)", "(band)", "(novel)", "(song)", "(disambiguation)", "(surname)",
	"(video_game)", "(TV_series)", "(1998_film)", "(mathematics)", "(biology)",
};

static const char *const td_code_prefixes[] = {"ORD", "INV", "SKU", "PO", "REF", "TKT", "ACC", "CN"};

/* 3-byte UTF-8 characters only: td_put_char3 indexes them */
static const char td_chinese_chars[] =
	"的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学"
	"对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公"
	"同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正"
	"名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并"
	"内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表"
	"原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风"
	"战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫"
	"连远资队跟带花快条院变联言权往展该观";

static const char *const td_chinese_words[] = {
	"数据库", "压缩", "字符串", "测试", "文本", "服务器", "系统", "网络", "用户", "信息",
	"北京", "上海", "中国", "公司", "学生", "时间", "问题", "发展", "经济", "技术",
};

static const char td_hiragana[] =
	"あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
	"がぎぐげござじずぜぞだぢづでどばびぶべぼぱぴぷぺぽ";

static const char td_kanji[] =
	"日本人大学生時間会社東京電話手紙新聞天気食事言語文化仕事友達家族先生駅道車店国語世界"
	"今年毎朝昼夜春夏秋冬山川海空花雨雪風音楽映画写真旅行料理";

static const char *const td_katakana_words[] = {
	"データ", "システム", "コンピュータ", "サーバー", "ネットワーク", "プログラム", "テスト",
	"ファイル", "メール", "ホテル", "レストラン", "コーヒー", "テレビ", "ニュース", "スポーツ",
	"カメラ", "パソコン", "インターネット", "データベース", "アプリ",
};

static const char *const td_japanese_particles[] = {"は", "が", "を", "に", "で", "と", "の", "も", "から", "まで"};

static const char *const td_japanese_endings[] = {
	"ます。", "ました。", "です。", "でした。", "ません。", "たい。", "ですか？", "ください。",
	"でしょう。", "る。",
};

static const char *const td_euro_words[] = {
	/* German */
	"und", "der", "die", "das", "ist", "nicht", "mit", "für", "über", "schön", "Grüße",
	"Mädchen", "Straße", "können", "Größe", "müssen", "Bücher", "Käse", "fröhlich", "weiß",
	"Gefühl", "Herz", "Nacht", "heißt", "Fräulein", "Träume", "Geist", "Welt",
	/* French */
	"le", "la", "les", "et", "est", "pas", "café", "naïve", "élève", "déjà", "où", "garçon",
	"français", "très", "être", "à", "même", "fenêtre", "forêt", "cœur", "Noël", "hôtel",
	/* Spanish, Portuguese */
	"el", "los", "y", "que", "de", "en", "año", "niño", "señor", "mañana", "corazón",
	"canción", "está", "más", "ação", "coração", "não", "irmã",
	/* Polish, Czech, Nordic */
	"się", "nie", "jest", "Dziękuję", "łódź", "żółw", "część", "przyjaciel", "příliš",
	"žluťoučký", "kůň", "úpěl", "ďábelské", "ódy", "smörgås", "kærlighed", "ø", "på", "för",
};

static const char *const td_log_levels[] = {"LOG", "WARNING", "ERROR", "DEBUG", "INFO", "NOTICE"};

static const char td_bases[] = "ACGT";

/* ---- the columns ---- */

typedef struct td_gen
{
	int			column;
	td_rng		rng;
	uint64_t	row;			/* values generated so far */
	uint64_t	serial;			/* running number of sequential columns */
} td_gen;

static inline const char *
td_column_name(int column)
{
	static const char *const names[TD_NCOLUMNS] = {
		"email", "url", "name", "city", "l_comment", "ps_comment", "customer", "code", "hex",
		"uuid", "genome", "chinese", "japanese", "accented", "location", "wiki", "long", "sparse",
	};

	return column >= 0 && column < TD_NCOLUMNS ? names[column] : "?";
}

/* The column of that name, or -1. */
static inline int
td_column_by_name(const char *name)
{
	for (int c = 0; c < TD_NCOLUMNS; c++)
		if (strcmp(name, td_column_name(c)) == 0)
			return c;
	return -1;
}

/*
 * The usual number of values of a column: between about 0.3 and 3.6 MB of
 * text each, about 30 MB in all, like a real column sample.
 */
static inline size_t
td_column_values(int column)
{
	static const size_t counts[TD_NCOLUMNS] = {
		100000, 30000, 100000, 15000, 100000, 20000, 100000, 100000, 100000,
		100000, 100000, 9000, 2500, 15000, 60000, 100000, 3000, 50000,
	};

	return column >= 0 && column < TD_NCOLUMNS ? counts[column] : 0;
}

static inline void
td_gen_init(td_gen *g, int column)
{
	g->column = column;
	g->rng.state = 0x6773737464617461ull ^ ((uint64_t) (column + 1) * 0xD1B54A32D192ED03ull);
	g->row = 0;
	g->serial = 0;
	(void) td_next(&g->rng);
}

static inline void
td_first_name(td_buf *b, td_rng *r, int intl)
{
	if (intl && td_chance(r, 1, 10))
		td_puts(b, TD_PICK(r, td_first_names_intl));
	else
		td_puts(b, TD_PICK_SKEWED(r, td_first_names));
}

static inline void
td_last_name(td_buf *b, td_rng *r, int intl)
{
	if (intl && td_chance(r, 1, 10))
		td_puts(b, TD_PICK(r, td_last_names_intl));
	else
		td_puts(b, TD_PICK_SKEWED(r, td_last_names));
}

static inline void
td_email(td_buf *b, td_rng *r)
{
	const char *first = TD_PICK_SKEWED(r, td_first_names);
	const char *last = TD_PICK_SKEWED(r, td_last_names);
	uint64_t	style = td_below(r, 8);
	size_t		start = b->n;

	switch (style)
	{
		case 0:
		case 1:
			td_puts_lower(b, first);
			td_putc(b, '.');
			td_puts_lower(b, last);
			break;
		case 2:
			td_puts_lower(b, first);
			td_putc(b, '_');
			td_puts_lower(b, last);
			break;
		case 3:
			td_putc(b, (char) (first[0] - 'A' + 'a'));
			td_puts_lower(b, last);
			break;
		case 4:
			td_puts_lower(b, first);
			td_puts_lower(b, last);
			break;
		case 5:
			td_puts_lower(b, last);
			td_putc(b, '.');
			td_puts_lower(b, first);
			break;
		case 6:
			td_puts_lower(b, first);
			break;
		default:
			td_puts(b, TD_PICK(r, td_url_words));
			td_puts_lower(b, last);
			break;
	}
	/* a space in "de Vries" is no good in an address */
	for (size_t i = start; i < b->n; i++)
		if (b->p[i] == ' ')
			b->p[i] = '-';
	if (td_chance(r, 3, 5))
		td_putnum(b, td_chance(r, 1, 2) ? td_range(r, 1, 99) : td_range(r, 1950, 2012), 0);
	td_putc(b, '@');
	td_puts(b, TD_PICK_SKEWED(r, td_mail_domains));
}

static inline void
td_url(td_buf *b, td_rng *r)
{
	uint64_t	depth = td_range(r, 0, 4);

	td_puts(b, td_chance(r, 2, 3) ? "https://" : "http://");
	td_puts(b, TD_PICK_SKEWED(r, td_web_hosts));
	for (uint64_t d = 0; d < depth; d++)
	{
		td_putc(b, '/');
		if (td_chance(r, 1, 6))
			td_putnum(b, td_below(r, 100000), 0);
		else
			td_puts(b, TD_PICK(r, td_url_words));
	}
	if (depth > 0)
		td_puts(b, TD_PICK(r, td_url_exts));
	else
		td_putc(b, '/');
	if (td_chance(r, 2, 5))
	{
		uint64_t	nparams = td_range(r, 1, 3);

		for (uint64_t k = 0; k < nparams; k++)
		{
			td_putc(b, k == 0 ? '?' : '&');
			td_puts(b, TD_PICK(r, td_url_params));
			td_putc(b, '=');
			if (td_chance(r, 1, 2))
				td_putnum(b, td_below(r, 1000000), 0);
			else if (td_chance(r, 1, 2))
				td_puts(b, TD_PICK(r, td_url_words));
			else
				td_puthex(b, r, 16, 0);
		}
	}
}

static inline void
td_name(td_buf *b, td_rng *r)
{
	td_first_name(b, r, 1);
	if (td_chance(r, 1, 8))
	{
		td_putc(b, ' ');
		td_putc(b, (char) ('A' + td_below(r, 26)));
		td_putc(b, '.');
	}
	td_putc(b, ' ');
	td_last_name(b, r, 1);
	if (td_chance(r, 1, 20))
	{
		td_putc(b, '-');
		td_last_name(b, r, 1);
	}
}

static inline void
td_city(td_buf *b, td_rng *r)
{
	if (td_chance(r, 2, 5))
	{
		td_puts(b, TD_PICK_SKEWED(r, td_cities));
		return;
	}
	td_puts(b, TD_PICK(r, td_city_heads));
	td_puts(b, TD_PICK(r, td_city_middles));
	td_puts(b, TD_PICK(r, td_city_tails));
	if (td_chance(r, 1, 12))
	{
		td_puts(b, td_chance(r, 1, 2) ? " an der " : " upon ");
		td_puts(b, TD_PICK(r, td_city_heads));
		td_puts(b, TD_PICK(r, td_city_tails));
	}
}

/* Text in the manner of dbgen: sentences of the grammar's words. */
static inline void
td_tpch_sentence(td_buf *b, td_rng *r)
{
	uint64_t	form = td_below(r, 5);

	if (td_chance(r, 1, 2))
	{
		td_puts(b, TD_PICK(r, td_tpch_adjectives));
		td_putc(b, ' ');
	}
	td_puts(b, TD_PICK(r, td_tpch_nouns));
	td_putc(b, ' ');
	if (form == 1)
	{
		td_puts(b, TD_PICK(r, td_tpch_auxiliaries));
		td_putc(b, ' ');
	}
	td_puts(b, TD_PICK(r, td_tpch_verbs));
	if (form >= 2)
	{
		td_putc(b, ' ');
		td_puts(b, TD_PICK(r, td_tpch_adverbs));
	}
	if (form != 3)
	{
		td_putc(b, ' ');
		td_puts(b, TD_PICK(r, td_tpch_prepositions));
		td_puts(b, " the ");
		td_puts(b, TD_PICK(r, td_tpch_adjectives));
		td_putc(b, ' ');
		td_puts(b, TD_PICK(r, td_tpch_nouns));
	}
	td_puts(b, TD_PICK(r, td_tpch_terminators));
	td_putc(b, ' ');
}

/* A piece of len bytes cut out of a longer stretch of sentences, as dbgen does. */
static inline void
td_tpch_comment(td_buf *b, td_rng *r, size_t len)
{
	uint8_t		tmp[512];
	td_buf		t = {tmp, 0, sizeof(tmp)};
	size_t		skip = (size_t) td_below(r, 40);

	if (len + skip > sizeof(tmp))
		len = sizeof(tmp) - skip;
	while (t.n < len + skip)
		td_tpch_sentence(&t, r);
	/* no leading or trailing blank: PostgreSQL's and dbgen's comments lack them too */
	while (skip < t.n && tmp[skip] == ' ')
		skip++;
	if (skip + len > t.n)
		len = t.n - skip;
	while (len > 1 && tmp[skip + len - 1] == ' ')
		len--;
	for (size_t i = 0; i < len; i++)
		td_putc(b, (char) tmp[skip + i]);
}

static inline void
td_customer(td_buf *b, td_gen *g)
{
	g->serial += 1 + (td_chance(&g->rng, 1, 10) ? td_below(&g->rng, 20) : 0);
	td_puts(b, "Customer#");
	td_putnum(b, g->serial, 9);
}

static inline void
td_code(td_buf *b, td_rng *r)
{
	switch (td_below(r, 7))
	{
		case 0:					/* phone */
			td_putc(b, '+');
			td_putnum(b, td_range(r, 1, 99), 0);
			td_putc(b, ' ');
			td_putnum(b, td_range(r, 10, 999), 0);
			td_putc(b, ' ');
			td_putnum(b, td_below(r, 10000000), 7);
			break;
		case 1:					/* order code */
			td_puts(b, TD_PICK(r, td_code_prefixes));
			td_putc(b, '-');
			td_putnum(b, td_range(r, 2015, 2025), 0);
			td_putc(b, '-');
			td_putnum(b, td_below(r, 1000000), 6);
			break;
		case 2:					/* ISO date, some with a time */
			td_putnum(b, td_range(r, 1990, 2025), 0);
			td_putc(b, '-');
			td_putnum(b, td_range(r, 1, 12), 2);
			td_putc(b, '-');
			td_putnum(b, td_range(r, 1, 28), 2);
			if (td_chance(r, 1, 2))
			{
				td_putc(b, ' ');
				td_putnum(b, td_below(r, 24), 2);
				td_putc(b, ':');
				td_putnum(b, td_below(r, 60), 2);
				td_putc(b, ':');
				td_putnum(b, td_below(r, 60), 2);
			}
			break;
		case 3:					/* amount */
			td_putnum(b, td_skewed(r, 100000), 0);
			td_putc(b, '.');
			td_putnum(b, td_below(r, 100), 2);
			break;
		case 4:					/* plain number */
			td_putnum(b, td_below(r, 1000000000), 0);
			break;
		case 5:					/* postcode */
			td_putnum(b, td_below(r, 100000), 5);
			break;
		default:				/* part number */
			td_putc(b, (char) ('A' + td_below(r, 26)));
			td_putc(b, (char) ('A' + td_below(r, 26)));
			td_putnum(b, td_below(r, 10000), 4);
			td_putc(b, '/');
			td_puthex(b, r, 3, 1);
			break;
	}
}

static inline void
td_uuid(td_buf *b, td_rng *r)
{
	td_puthex(b, r, 8, 0);
	td_putc(b, '-');
	td_puthex(b, r, 4, 0);
	td_puts(b, "-4");
	td_puthex(b, r, 3, 0);
	td_putc(b, '-');
	td_putc(b, "89ab"[td_below(r, 4)]);
	td_puthex(b, r, 3, 0);
	td_putc(b, '-');
	td_puthex(b, r, 12, 0);
}

static inline void
td_genome(td_buf *b, td_rng *r)
{
	/* repeats of a few motifs with point changes, as reads of one genome have */
	static const char *const motifs[] = {"ACGTTGCA", "GATTACA", "TTAGGG", "CCGGAATT", "ATATAT", "GCGCGC"};
	size_t		start = b->n;

	while (b->n < start + 10)
	{
		if (td_chance(r, 1, 3))
			td_puts(b, TD_PICK(r, motifs));
		else
			td_putc(b, td_bases[td_below(r, 4)]);
	}
	b->n = start + 10;
	if (td_chance(r, 1, 4))
	{
		size_t		at = start + (size_t) td_below(r, 10);

		b->p[at] = (uint8_t) td_bases[td_below(r, 4)];
	}
}

static inline void
td_chinese(td_buf *b, td_rng *r)
{
	uint64_t	clauses = td_range(r, 1, 4);

	for (uint64_t k = 0; k < clauses; k++)
	{
		uint64_t	n = td_range(r, 3, 14);

		for (uint64_t i = 0; i < n; i++)
		{
			if (td_chance(r, 1, 6))
				td_puts(b, TD_PICK(r, td_chinese_words));
			else
				td_put_random_char3(b, r, td_chinese_chars);
		}
		if (td_chance(r, 1, 12))
		{
			td_putnum(b, td_below(r, 2030), 0);
			td_puts(b, "年");
		}
		td_puts(b, k + 1 < clauses ? "，" : (td_chance(r, 1, 8) ? "！" : "。"));
	}
}

static inline void
td_japanese(td_buf *b, td_rng *r)
{
	uint64_t	sentences = td_range(r, 1, 3);

	for (uint64_t s = 0; s < sentences; s++)
	{
		uint64_t	parts = td_range(r, 2, 4);

		for (uint64_t p = 0; p < parts; p++)
		{
			if (td_chance(r, 1, 2))
			{
				uint64_t	n = td_range(r, 1, 3);

				for (uint64_t i = 0; i < n; i++)
					td_put_random_char3(b, r, td_kanji);
			}
			else
				td_puts(b, TD_PICK(r, td_katakana_words));
			td_puts(b, TD_PICK(r, td_japanese_particles));
		}
		{
			uint64_t	n = td_range(r, 1, 4);

			for (uint64_t i = 0; i < n; i++)
				td_put_random_char3(b, r, td_hiragana);
		}
		td_puts(b, TD_PICK(r, td_japanese_endings));
	}
}

static inline void
td_accented(td_buf *b, td_rng *r)
{
	uint64_t	n = td_range(r, 2, 9);

	for (uint64_t i = 0; i < n; i++)
	{
		const char *w = TD_PICK(r, td_euro_words);

		if (i > 0)
			td_putc(b, ' ');
		/* a capital first letter (ASCII ones only) */
		if (i == 0 && w[0] >= 'a' && w[0] <= 'z')
		{
			td_putc(b, (char) (w[0] - 'a' + 'A'));
			td_puts(b, w + 1);
		}
		else
			td_puts(b, w);
		if (i + 1 < n && td_chance(r, 1, 10))
			td_putc(b, ',');
	}
	td_puts(b, td_chance(r, 3, 4) ? "." : td_chance(r, 1, 2) ? "!" : "?");
}

static inline void
td_location(td_buf *b, td_rng *r)
{
	td_putnum(b, td_range(r, 1, 999), 0);
	td_putc(b, ' ');
	td_puts(b, TD_PICK_SKEWED(r, td_street_names));
	td_puts(b, TD_PICK(r, td_street_types));
	td_puts(b, ", ");
	td_putnum(b, td_below(r, 100000), 5);
	td_putc(b, ' ');
	td_city(b, r);
	if (td_chance(r, 1, 3))
	{
		static const char *const countries[] = {", USA", ", Germany", ", France", ", Brasil", ", Polska", ", 日本"};

		td_puts(b, TD_PICK(r, countries));
	}
}

static inline void
td_wiki(td_buf *b, td_rng *r)
{
	size_t		start = b->n;

	switch (td_below(r, 6))
	{
		case 0:
			td_puts(b, TD_PICK(r, td_wiki_nouns));
			td_puts(b, "_of_");
			td_city(b, r);
			break;
		case 1:
			td_puts(b, "List_of_");
			td_puts_lower(b, TD_PICK(r, td_wiki_nouns));
			td_puts(b, "s_in_");
			td_city(b, r);
			break;
		case 2:
			td_first_name(b, r, 1);
			td_putc(b, '_');
			td_last_name(b, r, 1);
			break;
		case 3:
			td_putnum(b, td_range(r, 1800, 2024), 0);
			td_puts(b, "_in_");
			td_puts(b, TD_PICK(r, td_wiki_nouns));
			break;
		case 4:
			td_puts(b, TD_PICK(r, td_tpch_adjectives));
			td_putc(b, '_');
			td_puts_lower(b, TD_PICK(r, td_wiki_nouns));
			td_putc(b, '_');
			td_puts(b, TD_PICK(r, td_wiki_qualifiers));
			break;
		default:
			td_city(b, r);
			td_putc(b, '_');
			td_puts(b, TD_PICK(r, td_wiki_nouns));
			break;
	}
	for (size_t i = start; i < b->n; i++)
		if (b->p[i] == ' ')
			b->p[i] = '_';
}

/* A log line, for the long values */
static inline void
td_log_line(td_buf *b, td_rng *r)
{
	td_putnum(b, td_range(r, 2019, 2025), 0);
	td_putc(b, '-');
	td_putnum(b, td_range(r, 1, 12), 2);
	td_putc(b, '-');
	td_putnum(b, td_range(r, 1, 28), 2);
	td_putc(b, ' ');
	td_putnum(b, td_below(r, 24), 2);
	td_putc(b, ':');
	td_putnum(b, td_below(r, 60), 2);
	td_putc(b, ':');
	td_putnum(b, td_below(r, 60), 2);
	td_puts(b, " [");
	td_putnum(b, td_range(r, 1000, 65535), 0);
	td_puts(b, "] ");
	td_puts(b, TD_PICK_SKEWED(r, td_log_levels));
	td_puts(b, ":  ");
	td_tpch_comment(b, r, (size_t) td_range(r, 20, 120));
	if (td_chance(r, 1, 4))
	{
		td_puts(b, " user=");
		td_email(b, r);
	}
	td_putc(b, '\t');
}

static inline void
td_long(td_buf *b, td_rng *r, uint64_t row)
{
	/* lengths that hit the segment size and its neighbours, early on */
	static const size_t exact[] = {4095, 4096, 4097, 8191, 8192, 8193, 12288, 65536};
	int			at_exact = row % 97 == 13 && row / 97 < TD_COUNT(exact);
	size_t		want;

	if (at_exact)
		want = exact[row / 97];
	else if (td_chance(r, 1, 40))
		want = (size_t) td_range(r, 4000, TD_MAX_VALUE);
	else if (td_chance(r, 1, 8))
		want = (size_t) td_range(r, 300, 4000);
	else
		want = (size_t) td_range(r, 1, 120);

	/* a multi-byte text now and then (ASCII at the exact lengths) */
	int			kind = (int) td_below(r, 10);

	if (at_exact)
		kind = 2;
	size_t		cap = b->cap;

	if (want < cap - b->n)
		b->cap = b->n + want;
	while (b->n < b->cap)
	{
		if (kind == 0)
			td_chinese(b, r);
		else if (kind == 1)
			td_accented(b, r);
		else if (kind <= 5)
			td_log_line(b, r);
		else
		{
			td_tpch_sentence(b, r);
			if (td_chance(r, 1, 30))
				td_url(b, r);
		}
	}
	td_trim_utf8(b);
	b->cap = cap;
}

static inline void
td_sparse(td_buf *b, td_rng *r)
{
	static const char *const flags[] = {"Y", "N", "A", "F", "M", "R", "O", "?", "-", "0", "1", "NA", "ja", "oui"};

	if (td_chance(r, 2, 5))
		return;
	td_puts(b, TD_PICK_SKEWED(r, flags));
}

/*
 * The next value of g's column, written to out (TD_MAX_VALUE bytes);
 * returns its length.
 */
static inline size_t
td_gen_next(td_gen *g, uint8_t *out)
{
	td_buf		b = {out, 0, TD_MAX_VALUE};
	td_rng	   *r = &g->rng;
	uint64_t	row = g->row++;

	/* a few empty values, except in the fixed-width columns */
	if (g->column != TD_UUID && g->column != TD_GENOME && g->column != TD_CUSTOMER &&
		td_chance(r, 1, 250))
		return 0;
	switch (g->column)
	{
		case TD_EMAIL:
			td_email(&b, r);
			break;
		case TD_URL:
			td_url(&b, r);
			break;
		case TD_NAME:
			td_name(&b, r);
			break;
		case TD_CITY:
			td_city(&b, r);
			break;
		case TD_L_COMMENT:
			td_tpch_comment(&b, r, (size_t) td_range(r, 10, 43));
			break;
		case TD_PS_COMMENT:
			td_tpch_comment(&b, r, (size_t) td_range(r, 49, 198));
			break;
		case TD_CUSTOMER:
			td_customer(&b, g);
			break;
		case TD_CODE:
			td_code(&b, r);
			break;
		case TD_HEX:
			{
				int			digits = (int) td_range(r, 1, 16);

				td_puthex(&b, r, digits, td_chance(r, 1, 20));
			}
			break;
		case TD_UUID:
			td_uuid(&b, r);
			break;
		case TD_GENOME:
			td_genome(&b, r);
			break;
		case TD_CHINESE:
			td_chinese(&b, r);
			break;
		case TD_JAPANESE:
			td_japanese(&b, r);
			break;
		case TD_ACCENTED:
			td_accented(&b, r);
			break;
		case TD_LOCATION:
			td_location(&b, r);
			break;
		case TD_WIKI:
			td_wiki(&b, r);
			break;
		case TD_LONG:
			td_long(&b, r, row);
			break;
		case TD_SPARSE:
			td_sparse(&b, r);
			break;
		default:
			break;
	}
	return b.n;
}

#endif							/* GSST_TEST_DATA_H */
