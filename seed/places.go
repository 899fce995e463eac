package seed

// The places user addresses are drawn from: real countries, their real
// cities with the state, province or region each lies in, and postal codes
// of that city's own ranges. A document draws one place, so its city,
// state, postal code and country always belong together.
//
// Postal code patterns: '#' is a random digit, '@' a random letter of the
// country's letter set, anything else is kept. Each pattern is a prefix
// that the city's codes really start with (a US ZIP's three-digit sectional
// centre, a UK postcode district, a Canadian forward sortation area, a
// German, French or Turkish leading-digit range, ...), completed with random
// characters in the country's format.

// country is one country of the table.
type country struct {
	name   string
	weight int // share of users, out of the sum of all weights
	// letters are the letters a '@' of a postal code pattern draws from.
	letters string
	street  streetStyle
	cities  []city
	// cumulative city weights, filled by init.
	cum   []int
	total int
}

// city is a city with its region (the address's state) and the patterns
// of its postal codes.
type city struct {
	name, region string
	weight       int // relative to the other cities of the country
	postal       []string
}

// streetStyle is how a country writes the street line of an address.
type streetStyle struct {
	form   streetForm
	maxNum int // street numbers are 1..maxNum
	names  []string
	types  []string
}

type streetForm uint8

const (
	formNumNameType   streetForm = iota // 192 Oak Street
	formNameTypeNum                     // Lindenstraße 12 (name and type glued)
	formNumTypeName                     // 12 rue Victor Hugo
	formNameTypeNo                      // Atatürk Caddesi No: 12
	formTypeNameComma                   // Rua das Flores, 123
	formNumCommaName                    // 42, MG Road
	formBlock                           // 1-2-3 Ginza (chōme-ban-gō and district)
)

// ukLetters are the letters of a UK inward code (no C, I, K, M, O, V);
// caLetters those of a Canadian local delivery unit (no D, F, I, O, Q, U).
const (
	ukLetters = "ABDEFGHJLNPQRSTUWXYZ"
	caLetters = "ABCEGHJKLMNPRSTVWXYZ"
)

var englishStreets = streetStyle{form: formNumNameType, maxNum: 9999,
	names: []string{"Oak", "Maple", "Pine", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Main", "Church", "Highland",
		"Sunset", "Lincoln", "Jackson", "Franklin", "Madison", "Ridge", "River", "Spring", "Willow", "Walnut", "Chestnut",
		"Cherry", "Center", "Mill", "Forest", "Meadow", "Jefferson", "Adams", "Hickory", "Birch", "Valley", "Lakeview"},
	types: []string{"Street", "Avenue", "Road", "Drive", "Lane", "Boulevard", "Court", "Place", "Way", "Terrace"}}

// countries is the table, in order of weight.
var countries = []country{
	{name: "United States", weight: 40, street: englishStreets, cities: []city{
		{"New York", "New York", 8, []string{"100##", "101##", "102##"}},
		{"Los Angeles", "California", 5, []string{"900##"}},
		{"Chicago", "Illinois", 4, []string{"606##"}},
		{"Houston", "Texas", 3, []string{"770##"}},
		{"Phoenix", "Arizona", 2, []string{"850##"}},
		{"Philadelphia", "Pennsylvania", 2, []string{"191##"}},
		{"San Antonio", "Texas", 2, []string{"782##"}},
		{"San Diego", "California", 2, []string{"921##"}},
		{"Dallas", "Texas", 2, []string{"752##"}},
		{"San Jose", "California", 1, []string{"951##"}},
		{"Austin", "Texas", 1, []string{"787##"}},
		{"Jacksonville", "Florida", 1, []string{"322##"}},
		{"Seattle", "Washington", 1, []string{"981##"}},
		{"Boston", "Massachusetts", 1, []string{"021##"}},
		{"Denver", "Colorado", 1, []string{"802##"}},
		{"Atlanta", "Georgia", 1, []string{"303##"}},
		{"Miami", "Florida", 1, []string{"331##"}},
		{"Columbus", "Ohio", 1, []string{"432##"}},
		{"Cleveland", "Ohio", 1, []string{"441##"}},
		{"Detroit", "Michigan", 1, []string{"482##"}},
		{"Charlotte", "North Carolina", 1, []string{"282##"}},
		{"Portland", "Oregon", 1, []string{"972##"}},
		{"Minneapolis", "Minnesota", 1, []string{"554##"}},
		{"Nashville", "Tennessee", 1, []string{"372##"}},
		{"Las Vegas", "Nevada", 1, []string{"891##"}},
		{"Washington", "District of Columbia", 1, []string{"200##"}},
		{"San Francisco", "California", 1, []string{"941##"}},
		{"Kansas City", "Missouri", 1, []string{"641##"}},
		{"Milwaukee", "Wisconsin", 1, []string{"532##"}},
		{"New Orleans", "Louisiana", 1, []string{"701##"}},
		{"Salt Lake City", "Utah", 1, []string{"841##"}},
	}},
	{name: "India", weight: 12, street: streetStyle{form: formNumCommaName, maxNum: 999,
		names: []string{"MG", "Station", "Gandhi", "Nehru", "Temple", "Church", "Park", "Lake", "Ring", "Link", "Tilak", "Subhash", "Patel", "Market"},
		types: []string{"Road", "Marg", "Street", "Lane"}}, cities: []city{
		{"Mumbai", "Maharashtra", 4, []string{"400###"}},
		{"Delhi", "Delhi", 4, []string{"110###"}},
		{"Bengaluru", "Karnataka", 3, []string{"560###"}},
		{"Hyderabad", "Telangana", 2, []string{"500###"}},
		{"Chennai", "Tamil Nadu", 2, []string{"600###"}},
		{"Kolkata", "West Bengal", 2, []string{"700###"}},
		{"Pune", "Maharashtra", 2, []string{"411###"}},
		{"Ahmedabad", "Gujarat", 1, []string{"380###"}},
		{"Jaipur", "Rajasthan", 1, []string{"302###"}},
		{"Lucknow", "Uttar Pradesh", 1, []string{"226###"}},
	}},
	{name: "United Kingdom", weight: 10, letters: ukLetters, street: streetStyle{form: formNumNameType, maxNum: 300,
		names: []string{"High", "Station", "Church", "Victoria", "Park", "Mill", "Manor", "Green", "London", "York", "Queen's", "King's", "Albert", "Grange", "Windsor"},
		types: []string{"Road", "Street", "Lane", "Close", "Avenue", "Gardens", "Crescent", "Way", "Terrace", "Drive"}}, cities: []city{
		{"London", "England", 8, []string{"E1 #@@", "EC1A #@@", "N1 #@@", "NW1 #@@", "SE1 #@@", "SW1A #@@", "W1 #@@", "WC2N #@@"}},
		{"Birmingham", "England", 2, []string{"B1 #@@", "B2 #@@", "B3 #@@", "B5 #@@"}},
		{"Manchester", "England", 2, []string{"M1 #@@", "M2 #@@", "M3 #@@", "M4 #@@"}},
		{"Leeds", "England", 1, []string{"LS1 #@@", "LS2 #@@", "LS6 #@@"}},
		{"Liverpool", "England", 1, []string{"L1 #@@", "L2 #@@", "L3 #@@"}},
		{"Sheffield", "England", 1, []string{"S1 #@@", "S2 #@@", "S3 #@@"}},
		{"Bristol", "England", 1, []string{"BS1 #@@", "BS2 #@@", "BS8 #@@"}},
		{"Newcastle upon Tyne", "England", 1, []string{"NE1 #@@", "NE2 #@@", "NE6 #@@"}},
		{"Glasgow", "Scotland", 2, []string{"G1 #@@", "G2 #@@", "G3 #@@", "G4 #@@"}},
		{"Edinburgh", "Scotland", 1, []string{"EH1 #@@", "EH2 #@@", "EH3 #@@"}},
		{"Cardiff", "Wales", 1, []string{"CF10 #@@", "CF11 #@@", "CF24 #@@"}},
		{"Belfast", "Northern Ireland", 1, []string{"BT1 #@@", "BT2 #@@", "BT7 #@@", "BT9 #@@"}},
	}},
	{name: "Germany", weight: 8, street: streetStyle{form: formNameTypeNum, maxNum: 150,
		names: []string{"Haupt", "Bahnhof", "Garten", "Schul", "Berg", "Linden", "Kirch", "Wald", "Goethe", "Schiller", "Mozart", "Birken", "Rosen", "Eichen", "Friedrich"},
		types: []string{"straße", "weg", "allee", "gasse", "ring"}}, cities: []city{
		{"Berlin", "Berlin", 5, []string{"101##", "104##", "107##", "109##", "120##", "130##"}},
		{"Hamburg", "Hamburg", 3, []string{"200##", "201##", "220##", "227##"}},
		{"Munich", "Bavaria", 3, []string{"803##", "804##", "806##", "809##", "813##"}},
		{"Cologne", "North Rhine-Westphalia", 2, []string{"506##", "507##", "509##", "511##"}},
		{"Frankfurt am Main", "Hesse", 2, []string{"603##", "604##", "605##"}},
		{"Stuttgart", "Baden-Württemberg", 1, []string{"701##", "703##", "705##"}},
		{"Düsseldorf", "North Rhine-Westphalia", 1, []string{"402##", "404##", "405##"}},
		{"Leipzig", "Saxony", 1, []string{"041##", "043##"}},
		{"Dresden", "Saxony", 1, []string{"010##", "011##"}},
		{"Hanover", "Lower Saxony", 1, []string{"301##", "304##", "306##"}},
		{"Nuremberg", "Bavaria", 1, []string{"904##", "905##"}},
		{"Bremen", "Bremen", 1, []string{"281##", "282##", "283##"}},
	}},
	{name: "Brazil", weight: 7, street: streetStyle{form: formTypeNameComma, maxNum: 3000,
		names: []string{"das Flores", "São João", "XV de Novembro", "Sete de Setembro", "Tiradentes", "Dom Pedro II", "Santos Dumont", "Getúlio Vargas", "da Consolação", "Brasil", "Independência", "dos Andradas"},
		types: []string{"Rua", "Avenida", "Travessa", "Alameda"}}, cities: []city{
		{"São Paulo", "São Paulo", 5, []string{"01###-###", "02###-###", "03###-###", "04###-###", "05###-###"}},
		{"Rio de Janeiro", "Rio de Janeiro", 3, []string{"20###-###", "21###-###", "22###-###"}},
		{"Brasília", "Distrito Federal", 1, []string{"70###-###", "71###-###"}},
		{"Salvador", "Bahia", 1, []string{"40###-###", "41###-###"}},
		{"Belo Horizonte", "Minas Gerais", 1, []string{"30###-###", "31###-###"}},
		{"Fortaleza", "Ceará", 1, []string{"60###-###"}},
		{"Curitiba", "Paraná", 1, []string{"80###-###", "81###-###"}},
		{"Recife", "Pernambuco", 1, []string{"50###-###", "51###-###"}},
		{"Porto Alegre", "Rio Grande do Sul", 1, []string{"90###-###", "91###-###"}},
		{"Manaus", "Amazonas", 1, []string{"690##-###"}},
	}},
	{name: "Canada", weight: 6, letters: caLetters, street: streetStyle{form: formNumNameType, maxNum: 9999,
		names: []string{"King", "Queen", "Yonge", "Bloor", "Maple", "Main", "Church", "Dundas", "Sherbrooke", "Granville", "Portage", "Jasper", "Elgin", "Victoria"},
		types: []string{"Street", "Avenue", "Road", "Drive", "Crescent", "Boulevard", "Way"}}, cities: []city{
		{"Toronto", "Ontario", 5, []string{"M5V #@#", "M4C #@#", "M6G #@#", "M5A #@#"}},
		{"Montreal", "Quebec", 3, []string{"H2X #@#", "H3A #@#", "H2L #@#"}},
		{"Vancouver", "British Columbia", 2, []string{"V6B #@#", "V5K #@#", "V6K #@#"}},
		{"Calgary", "Alberta", 2, []string{"T2P #@#", "T3A #@#", "T2E #@#"}},
		{"Edmonton", "Alberta", 1, []string{"T5J #@#", "T6E #@#"}},
		{"Ottawa", "Ontario", 1, []string{"K1P #@#", "K2P #@#", "K1N #@#"}},
		{"Winnipeg", "Manitoba", 1, []string{"R3C #@#", "R2W #@#"}},
		{"Quebec City", "Quebec", 1, []string{"G1R #@#", "G1K #@#"}},
		{"Halifax", "Nova Scotia", 1, []string{"B3H #@#", "B3J #@#"}},
		{"Saskatoon", "Saskatchewan", 1, []string{"S7K #@#", "S7N #@#"}},
		{"Victoria", "British Columbia", 1, []string{"V8W #@#", "V9A #@#"}},
		{"St. John's", "Newfoundland and Labrador", 1, []string{"A1C #@#", "A1B #@#"}},
	}},
	{name: "France", weight: 5, street: streetStyle{form: formNumTypeName, maxNum: 200,
		names: []string{"de la République", "Victor Hugo", "Jean Jaurès", "de la Paix", "du Général de Gaulle", "Pasteur", "des Lilas", "de la Gare", "Gambetta", "Voltaire", "Émile Zola", "du Moulin"},
		types: []string{"rue", "avenue", "boulevard", "place", "allée", "chemin"}}, cities: []city{
		{"Paris", "Île-de-France", 6, []string{"75001", "75002", "75003", "75004", "75005", "75006", "75007", "75008", "75009", "75010", "75011", "75012", "75013", "75014", "75015", "75016", "75017", "75018", "75019", "75020"}},
		{"Marseille", "Provence-Alpes-Côte d'Azur", 2, []string{"13001", "13002", "13003", "13004", "13005", "13006", "13007", "13008", "13009", "13010", "13011", "13012", "13013", "13014", "13015", "13016"}},
		{"Lyon", "Auvergne-Rhône-Alpes", 2, []string{"69001", "69002", "69003", "69004", "69005", "69006", "69007", "69008", "69009"}},
		{"Toulouse", "Occitanie", 1, []string{"31000", "31100", "31200", "31300", "31400", "31500"}},
		{"Nice", "Provence-Alpes-Côte d'Azur", 1, []string{"06000", "06100", "06200", "06300"}},
		{"Nantes", "Pays de la Loire", 1, []string{"44000", "44100", "44200", "44300"}},
		{"Strasbourg", "Grand Est", 1, []string{"67000", "67100", "67200"}},
		{"Montpellier", "Occitanie", 1, []string{"34000", "34070", "34080", "34090"}},
		{"Bordeaux", "Nouvelle-Aquitaine", 1, []string{"33000", "33100", "33200", "33300", "33800"}},
		{"Lille", "Hauts-de-France", 1, []string{"59000", "59160", "59260", "59800"}},
		{"Rennes", "Brittany", 1, []string{"35000", "35200", "35700"}},
	}},
	{name: "Japan", weight: 4, street: streetStyle{form: formBlock, maxNum: 30,
		names: []string{"Chuo", "Honcho", "Sakae", "Motomachi", "Midori", "Kita", "Minami", "Higashi", "Nishi", "Sakuragicho", "Asahi", "Kotobuki", "Saiwai", "Nakamachi"}}, cities: []city{
		{"Tokyo", "Tokyo", 6, []string{"100-####", "104-####", "106-####", "150-####", "160-####", "170-####"}},
		{"Yokohama", "Kanagawa", 2, []string{"220-####", "221-####", "231-####"}},
		{"Osaka", "Osaka", 2, []string{"530-####", "540-####", "550-####"}},
		{"Nagoya", "Aichi", 1, []string{"450-####", "460-####", "464-####"}},
		{"Sapporo", "Hokkaido", 1, []string{"060-####", "064-####"}},
		{"Fukuoka", "Fukuoka", 1, []string{"810-####", "812-####"}},
		{"Kobe", "Hyogo", 1, []string{"650-####", "651-####"}},
		{"Kyoto", "Kyoto", 1, []string{"600-####", "604-####", "606-####"}},
	}},
	{name: "Turkey", weight: 4, street: streetStyle{form: formNameTypeNo, maxNum: 150,
		names: []string{"Atatürk", "Cumhuriyet", "İnönü", "Gazi", "Fevzi Çakmak", "Mimar Sinan", "Barış", "Lale", "Gül", "Çamlık", "İstiklal", "Menekşe"},
		types: []string{"Caddesi", "Sokak", "Bulvarı"}}, cities: []city{
		{"Istanbul", "Istanbul", 6, []string{"34###"}},
		{"Ankara", "Ankara", 2, []string{"06###"}},
		{"Izmir", "Izmir", 2, []string{"35###"}},
		{"Bursa", "Bursa", 1, []string{"16###"}},
		{"Antalya", "Antalya", 1, []string{"07###"}},
		{"Adana", "Adana", 1, []string{"01###"}},
		{"Konya", "Konya", 1, []string{"42###"}},
		{"Gaziantep", "Gaziantep", 1, []string{"27###"}},
		{"Eskişehir", "Eskişehir", 1, []string{"26###"}},
		{"Trabzon", "Trabzon", 1, []string{"61###"}},
	}},
	{name: "Australia", weight: 4, street: streetStyle{form: formNumNameType, maxNum: 500,
		names: []string{"George", "King", "Queen", "Elizabeth", "Victoria", "Collins", "Bourke", "Flinders", "Pitt", "Hunter", "William", "Albert", "Chapel", "Beach"},
		types: []string{"Street", "Road", "Avenue", "Parade", "Crescent", "Drive", "Place", "Terrace", "Highway"}}, cities: []city{
		{"Sydney", "New South Wales", 5, []string{"20##", "21##"}},
		{"Melbourne", "Victoria", 5, []string{"30##", "31##"}},
		{"Brisbane", "Queensland", 3, []string{"40##", "41##"}},
		{"Perth", "Western Australia", 2, []string{"60##", "61##"}},
		{"Adelaide", "South Australia", 2, []string{"50##", "51##"}},
		{"Canberra", "Australian Capital Territory", 1, []string{"260#", "290#"}},
		{"Hobart", "Tasmania", 1, []string{"700#", "701#"}},
		{"Darwin", "Northern Territory", 1, []string{"08##"}},
	}},
}

// countryCum and countryTotal are the cumulative country weights.
var (
	countryCum   []int
	countryTotal int
)

func init() {
	for k := range countries {
		c := &countries[k]
		countryTotal += c.weight
		countryCum = append(countryCum, countryTotal)
		for _, ci := range c.cities {
			c.total += ci.weight
			c.cum = append(c.cum, c.total)
		}
	}
}

// drawPlace picks a country by its share of users, then a city of it.
func (w *Worker) drawPlace() (*country, *city) {
	co := &countries[firstAbove(countryCum, w.f.IntN(countryTotal))]
	return co, &co.cities[firstAbove(co.cum, w.f.IntN(co.total))]
}

// appendPostal appends a postal code of pattern p.
func (w *Worker) appendPostal(dst []byte, co *country, p string) []byte {
	for k := 0; k < len(p); k++ {
		switch c := p[k]; c {
		case '#':
			dst = append(dst, byte('0'+w.f.IntN(10)))
		case '@':
			dst = append(dst, co.letters[w.f.IntN(len(co.letters))])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendStreet appends a street line in the country's style.
func (w *Worker) appendStreet(dst []byte, s *streetStyle) []byte {
	f := w.f
	num := int64(1 + f.IntN(s.maxNum))
	name := s.names[f.IntN(len(s.names))]
	typ := ""
	if len(s.types) > 0 {
		typ = s.types[f.IntN(len(s.types))]
	}
	switch s.form {
	case formNumNameType:
		dst = appendNumber(dst, num, 0)
		dst = append(append(append(append(dst, ' '), name...), ' '), typ...)
	case formNameTypeNum:
		dst = append(append(append(dst, name...), typ...), ' ')
		dst = appendNumber(dst, num, 0)
	case formNumTypeName:
		dst = appendNumber(dst, num, 0)
		dst = append(append(append(append(dst, ' '), typ...), ' '), name...)
	case formNameTypeNo:
		dst = append(append(append(append(dst, name...), ' '), typ...), " No: "...)
		dst = appendNumber(dst, num, 0)
	case formTypeNameComma:
		dst = append(append(append(append(dst, typ...), ' '), name...), ", "...)
		dst = appendNumber(dst, num, 0)
	case formNumCommaName:
		dst = append(appendNumber(dst, num, 0), ", "...)
		dst = append(append(append(dst, name...), ' '), typ...)
	case formBlock:
		dst = append(appendNumber(dst, int64(1+f.IntN(9)), 0), '-')
		dst = append(appendNumber(dst, num, 0), '-')
		dst = append(appendNumber(dst, int64(1+f.IntN(20)), 0), ' ')
		dst = append(dst, name...)
	}
	return dst
}
