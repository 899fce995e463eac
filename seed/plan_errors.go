package seed

// The errors of a plan and of the settings it is made from: PlanError,
// OptionError, and PlanOptions.Blame, which puts an error on the setting
// behind it, with PlanHint, its did-you-mean.

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/oidkit/oidkit/internal/suggest"
)

// ErrPlan is matched (errors.Is) by every plan error, which is a *PlanError.
var ErrPlan = errors.New("invalid plan")

// PlanError is a plan setting that cannot be used. It matches ErrPlan and
// unwraps to its cause (a *rules.NameError, a *TemplateError, ErrIDStrategy,
// oid.ErrTimeRange, or a plain reason).
type PlanError struct {
	Source     string  // the plan file, "" for a plan built in code
	Collection string  // "" for settings of the whole plan
	Setting    Setting // which setting is wrong
	Value      string  // the offending value, as written
	Err        error   // what is wrong and what was expected

	// where locates the setting in messages when Collection alone does not
	// (collections[3] of a file, a reference's field).
	where string
}

func (e *PlanError) Error() string {
	var b strings.Builder
	b.WriteString(ErrPlan.Error())
	b.WriteString(": ")
	if e.Source != "" {
		b.WriteString(e.Source)
		b.WriteString(": ")
	}
	switch {
	case e.where != "":
		b.WriteString(e.where)
		b.WriteString(": ")
	case e.Collection != "":
		fmt.Fprintf(&b, "collection %q: ", e.Collection)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *PlanError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrPlan) true.
func (e *PlanError) Is(target error) bool { return target == ErrPlan }

// planErrorf builds a *PlanError whose cause is the formatted reason.
func planErrorf(coll string, s Setting, value, format string, args ...any) *PlanError {
	return &PlanError{Collection: coll, Setting: s, Value: value, Err: fmt.Errorf(format, args...)}
}

// OptionError is a setting of PlanOptions that NewPlan cannot use: the
// setting, its value as a message shows it (quoted, or a number) and what
// is wrong with it. It wraps the *PlanError behind it, if any.
type OptionError struct {
	Setting Setting
	Value   string
	Err     error
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s %s: %v", e.Setting, e.Value, e.Err) }
func (e *OptionError) Unwrap() error { return e.Err }

func optionError(s Setting, value string, err error) *OptionError {
	return &OptionError{Setting: s, Value: value, Err: err}
}

func optionErrorf(s Setting, value, format string, args ...any) *OptionError {
	return optionError(s, value, fmt.Errorf(format, args...))
}

// Blame is err, an error of the plan o describes (NewPlan, or Build of it),
// as an *OptionError naming the setting behind it: with a plan every
// setting comes from the plan (or its file); otherwise the *PlanError's
// Setting says which. An error of no setting is returned as it is.
func (o PlanOptions) Blame(err error) error {
	if o.Plan != "" {
		return optionErrorf(SettingFile, strconv.Quote(o.Plan), "%w%s", err, PlanHint(err))
	}
	var pe *PlanError
	if !errors.As(err, &pe) {
		return err
	}
	if hint := PlanHint(err); hint != "" {
		err = fmt.Errorf("%w%s", err, hint)
	}
	switch pe.Setting {
	case SettingIDStart:
		return optionError(pe.Setting, strconv.FormatInt(o.IDStart, 10), err)
	case SettingCount:
		return optionError(pe.Setting, strconv.FormatInt(o.Count, 10), err)
	case SettingID, SettingSpan, SettingAt, SettingTemplate, SettingKind, SettingCollection, SettingDB:
		return optionError(pe.Setting, strconv.Quote(o.text(pe.Setting)), err)
	}
	return err
}

// text is the text of setting s.
func (o PlanOptions) text(s Setting) string {
	return map[Setting]string{SettingID: o.ID, SettingSpan: o.Span, SettingAt: o.At, SettingTemplate: o.Template, SettingKind: o.Kind, SettingCollection: o.Collection, SettingDB: o.DB}[s]
}

// PlanHint is the did-you-mean of a plan error: the nearest kind for an
// unknown kind, _id strategy for an unknown one, built-in plan for a plan
// file that does not exist; "" when none is near.
func PlanHint(err error) string {
	var pe *PlanError
	if !errors.As(err, &pe) {
		return ""
	}
	switch pe.Setting {
	case SettingKind:
		if !slices.Contains(Kinds(), pe.Value) {
			return suggest.DidYouMean(pe.Value, Kinds())
		}
	case SettingID:
		return idStrategyHint(pe.Value)
	case SettingFile:
		if errors.Is(err, fs.ErrNotExist) {
			return suggest.DidYouMean(pe.Value, BuiltinPlans())
		}
	}
	return ""
}
