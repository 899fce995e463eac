// Package mongoerr holds the errors oidkit's server sends to clients: MongoDB's
// numeric code, its code name and a message shaped as MongoDB shapes it, so
// that drivers and users match on them as they do against MongoDB. No Go type
// name or source location ever goes into a message.
package mongoerr

import (
	"errors"
	"fmt"
)

// Code is one of MongoDB's error codes (src/mongo/base/error_codes.yml).
type Code int32

// The codes the server answers with.
const (
	InternalError                      Code = 1
	BadValue                           Code = 2
	NoSuchKey                          Code = 4
	FailedToParse                      Code = 9
	TypeMismatch                       Code = 14
	InvalidLength                      Code = 16
	IllegalOperation                   Code = 20
	NamespaceNotFound                  Code = 26
	IndexNotFound                      Code = 27
	PathNotViable                      Code = 28
	ConflictingUpdateOperators         Code = 40
	CursorNotFound                     Code = 43
	NamespaceExists                    Code = 48
	MaxTimeMSExpired                   Code = 50
	DollarPrefixedFieldName            Code = 52
	InvalidIdField                     Code = 53
	NotSingleValueField                Code = 54
	EmptyFieldName                     Code = 56
	DottedFieldName                    Code = 57
	CommandNotFound                    Code = 59
	ImmutableField                     Code = 66
	CannotCreateIndex                  Code = 67
	IndexAlreadyExists                 Code = 68
	InvalidOptions                     Code = 72
	InvalidNamespace                   Code = 73
	IndexOptionsConflict               Code = 85
	IndexKeySpecsConflict              Code = 86
	NoSuchTransaction                  Code = 251
	WriteConflict                      Code = 112
	ConflictingOperationInProgress     Code = 117
	CommandNotSupported                Code = 115
	InvalidPipelineOperator            Code = 168
	Interrupted                        Code = 11601
	TransactionCommitted               Code = 256
	TransactionTooOld                  Code = 225
	OperationNotSupportedInTransaction Code = 263
	NotImplemented                     Code = 238
	CursorKilled                       Code = 237
	DocumentValidationFailure          Code = 121
	CommandNotSupportedOnView          Code = 166
	OptionNotSupportedOnView           Code = 167
	ViewDepthLimitExceeded             Code = 165
	Location15973                      Code = 15973
	DuplicateKey                       Code = 11000
	Unauthorized                       Code = 13
	NoSuchSession                      Code = 206
	InvalidUUID                        Code = 207
	OperationFailed                    Code = 96
	ExceededMemoryLimit                Code = 146
	QueryFeatureNotAllowed             Code = 224
	APIStrictError                     Code = 323
	OutOfDiskSpace                     Code = 14031
	NoMatchingDocument                 Code = 47
	InvalidResumeToken                 Code = 260
	ChangeStreamFatalError             Code = 280
	ChangeStreamHistoryLost            Code = 286
	CursorInUse                        Code = 292
	SearchNotEnabled                   Code = 31082
)

// names maps a code to MongoDB's code name.
var names = map[Code]string{
	InternalError:                      "InternalError",
	OutOfDiskSpace:                     "OutOfDiskSpace",
	BadValue:                           "BadValue",
	NoSuchKey:                          "NoSuchKey",
	FailedToParse:                      "FailedToParse",
	TypeMismatch:                       "TypeMismatch",
	InvalidLength:                      "InvalidLength",
	IllegalOperation:                   "IllegalOperation",
	NamespaceNotFound:                  "NamespaceNotFound",
	IndexNotFound:                      "IndexNotFound",
	PathNotViable:                      "PathNotViable",
	ConflictingUpdateOperators:         "ConflictingUpdateOperators",
	CursorNotFound:                     "CursorNotFound",
	NamespaceExists:                    "NamespaceExists",
	MaxTimeMSExpired:                   "MaxTimeMSExpired",
	DollarPrefixedFieldName:            "DollarPrefixedFieldName",
	InvalidIdField:                     "InvalidIdField",
	NotSingleValueField:                "NotSingleValueField",
	EmptyFieldName:                     "EmptyFieldName",
	DottedFieldName:                    "DottedFieldName",
	CommandNotFound:                    "CommandNotFound",
	SearchNotEnabled:                   "SearchNotEnabled",
	ImmutableField:                     "ImmutableField",
	CannotCreateIndex:                  "CannotCreateIndex",
	IndexAlreadyExists:                 "IndexAlreadyExists",
	InvalidOptions:                     "InvalidOptions",
	InvalidNamespace:                   "InvalidNamespace",
	IndexOptionsConflict:               "IndexOptionsConflict",
	IndexKeySpecsConflict:              "IndexKeySpecsConflict",
	NoSuchTransaction:                  "NoSuchTransaction",
	WriteConflict:                      "WriteConflict",
	ConflictingOperationInProgress:     "ConflictingOperationInProgress",
	CommandNotSupported:                "CommandNotSupported",
	InvalidPipelineOperator:            "InvalidPipelineOperator",
	Interrupted:                        "Interrupted",
	TransactionCommitted:               "TransactionCommitted",
	TransactionTooOld:                  "TransactionTooOld",
	OperationNotSupportedInTransaction: "OperationNotSupportedInTransaction",
	NotImplemented:                     "NotImplemented",
	CursorKilled:                       "CursorKilled",
	DocumentValidationFailure:          "DocumentValidationFailure",
	CommandNotSupportedOnView:          "CommandNotSupportedOnView",
	OptionNotSupportedOnView:           "OptionNotSupportedOnView",
	ViewDepthLimitExceeded:             "ViewDepthLimitExceeded",
	Location15973:                      "Location15973",
	DuplicateKey:                       "DuplicateKey",
	Unauthorized:                       "Unauthorized",
	NoSuchSession:                      "NoSuchSession",
	InvalidUUID:                        "InvalidUUID",
	OperationFailed:                    "OperationFailed",
	ExceededMemoryLimit:                "ExceededMemoryLimit",
	QueryFeatureNotAllowed:             "QueryFeatureNotAllowed",
	APIStrictError:                     "APIStrictError",
	NoMatchingDocument:                 "NoMatchingDocument",
	InvalidResumeToken:                 "InvalidResumeToken",
	ChangeStreamFatalError:             "ChangeStreamFatalError",
	ChangeStreamHistoryLost:            "ChangeStreamHistoryLost",
	CursorInUse:                        "CursorInUse",
}

// otherNames name the codes the server does not raise itself but a fail
// point may inject: MongoDB's names for them.
var otherNames = map[Code]string{6: "HostUnreachable", 7: "HostNotFound", 24: "LockTimeout", 63: "StaleShardVersion",
	89: "NetworkTimeout", 91: "ShutdownInProgress", 133: "FailedToSatisfyReadPreference", 150: "StaleEpoch",
	189: "PrimarySteppedDown", 216: "ElectionInProgress", 234: "RetryChangeStream", 246: "SnapshotUnavailable",
	262: "ExceededTimeLimit", 267: "PreparedTransactionInProgress", 9001: "SocketException", 10058: "LegacyNotPrimary",
	10107: "NotWritablePrimary", 11600: "InterruptedAtShutdown", 11602: "InterruptedDueToReplStateChange",
	13388: "StaleConfig", 13435: "NotPrimaryNoSecondaryOk", 13436: "NotPrimaryOrSecondary"}

// Name is MongoDB's code name for c; codes MongoDB names only by number
// ("Location" codes) are named "Location<code>".
func (c Code) Name() string {
	if n, ok := names[c]; ok {
		return n
	}
	if n, ok := otherNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Location%d", int32(c))
}

// Error is an error as the server answers it: {ok: 0, errmsg, code, codeName}.
// Labels are the errorLabels a driver acts on (TransientTransactionError...).
// Extra, when set, is a BSON document (raw bytes) of fields appended to the
// reply (keyPattern and keyValue of a duplicate key, for example).
type Error struct {
	Code   Code
	Msg    string
	Labels []string
	Extra  []byte
}

func (e *Error) Error() string { return e.Msg }

// New makes an error with code c and a formatted message.
func New(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Msg: fmt.Sprintf(format, args...)}
}

// Missing is the error of a command or stage without a field it
// requires, field named as MongoDB names it ("insert.documents",
// "$fill.output").
func Missing(c Code, field string) *Error {
	return New(c, "BSON field '%s' is missing but a required field", field)
}

// As returns err as an *Error; an error of another kind becomes an
// InternalError whose message is err's text (never its Go type).
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: InternalError, Msg: err.Error()}
}

// Is reports whether err is an *Error with code c.
func Is(err error, c Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}

// Location is a code MongoDB names only by number ("Location51091").
func Location(n int32) Code { return Code(n) }
