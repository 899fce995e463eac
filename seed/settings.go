package seed

import (
	"fmt"
	"slices"
)

// Setting is one setting of a plan: what a PlanError, an OptionError or a
// PlanDiff is about. The zero Setting is none.
type Setting int

// The settings of a plan. A caller maps each to its own spelling (a CLI
// flag, a form field); messages use its name (String).
const (
	SettingFile        Setting = iota + 1 // the plan file as a whole, or a built-in plan's name
	SettingDB                             // the database name
	SettingCollection                     // a collection's name
	SettingKind                           // a built-in kind of documents
	SettingTemplate                       // a template file, or a path inside it (TemplateError)
	SettingCount                          // a collection's number of documents
	SettingID                             // the _id strategy
	SettingIDStart                        // the first _id of the int strategy
	SettingIDStep                         // the step between int _ids
	SettingIDQuantiles                    // the quantiles int _ids follow
	SettingIDMix                          // shares of the documents whose _id other strategies make
	SettingRef                            // a reference to another collection
	SettingRefOnly                        // a collection only referred to, not written
	SettingTimes                          // a collection's quantiles of _id times
	SettingIndexes                        // a collection's index declarations
	SettingCollections                    // which collections the plan has
	SettingSeed                           // the seed
	SettingAt                             // the time base
	SettingSpan                           // the time window before the time base
	SettingFormat                         // the DocumentFormat a run was written in
	SettingStored                         // the stored _ids a run's references drew from
)

// settingName is a setting's name, which messages and PlanDiff use, and
// its key: in a plan file (PlanFile, CollectionPlan) or, for what only a
// run manifest holds, in the manifest.
type settingName struct{ name, key string }

// settingNames is each setting's name and key: those of the constants,
// then one for each plan file key of a collection that no constant has
// (a setting added as a CollectionSpec field alone), named by its key. A
// test checks the keys against the tags of the plan's types, both ways.
var settingNames = withPlanKeys([]settingName{
	SettingFile:        {"file", "plan"},
	SettingDB:          {"db", "db"},
	SettingCollection:  {"collection", "name"},
	SettingKind:        {"kind", "kind"},
	SettingTemplate:    {"template", "template"},
	SettingCount:       {"count", "count"},
	SettingID:          {"id", "id"},
	SettingIDStart:     {"idStart", "idStart"},
	SettingIDStep:      {"idStep", "idStep"},
	SettingIDQuantiles: {"idQuantiles", "idQuantiles"},
	SettingIDMix:       {"idMix", "idMix"},
	SettingRef:         {"ref", "refs"},
	SettingRefOnly:     {"refOnly", "refOnly"},
	SettingTimes:       {"times", "times"},
	SettingIndexes:     {"indexes", "indexes"},
	SettingCollections: {"collections", "collections"},
	SettingSeed:        {"seed", "seed"},
	SettingAt:          {"at", "at"},
	SettingSpan:        {"span", "span"},
	SettingFormat:      {"format", "format"},
	SettingStored:      {"stored", "stored"},
})

// withPlanKeys is names with a setting appended for each plan file key
// of CollectionPlan (jsonKeys) that none of them has.
func withPlanKeys(names []settingName) []settingName {
	for _, k := range jsonKeys {
		if !slices.ContainsFunc(names, func(n settingName) bool { return n.key == k }) {
			names = append(names, settingName{k, k})
		}
	}
	return names
}

// settingOfKey is the Setting whose Key is key, 0 for none.
func settingOfKey(key string) Setting {
	for s, n := range settingNames {
		if s > 0 && n.key == key {
			return Setting(s)
		}
	}
	return 0
}

// Settings is every Setting, in order.
func Settings() []Setting {
	out := make([]Setting, 0, len(settingNames)-1)
	for s := SettingFile; int(s) < len(settingNames); s++ {
		out = append(out, s)
	}
	return out
}

// String is the setting's name: "idStart", "ref".
func (s Setting) String() string {
	if s > 0 && int(s) < len(settingNames) {
		return settingNames[s].name
	}
	return fmt.Sprintf("Setting(%d)", int(s))
}

// Key is the setting's key in a plan file ("refs"), or in a run manifest
// for what a plan file does not hold ("seed").
func (s Setting) Key() string {
	if s > 0 && int(s) < len(settingNames) {
		return settingNames[s].key
	}
	return ""
}
