package expr

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// exprOps are the expression operators by name, each with its compiler:
// one table, so that each name is given once. init fills it, as the
// compilers read it through Compile.
var exprOps opTable

func init() {
	exprOps = opTable{}
	for _, family := range []func() opTable{numberOps, textOps, collectionOps, dateOps} {
		for name, compile := range family() {
			exprOps[name] = compile
		}
	}
	for op := range unaryMath {
		exprOps[op] = compileUnaryMath
	}
	for op := range trigFuncs {
		exprOps[op] = compileTrig
	}
}

// opTable is one family of operators by name.
type opTable = map[string]func(op string, v bsoncore.Value, vars *Vars) (*Expr, error)

// numberOps are the operators of arithmetic, comparison, conditions, variables and types.
func numberOps() opTable {
	return opTable{
		// arithmetic ($abs, $ceil, $floor, $sqrt, $trunc, $round, $exp, $ln and
		// $log10 are unaryMath's)
		"$add":      compileAddMultiply,
		"$multiply": compileAddMultiply,
		"$subtract": compileSubtract,
		"$divide":   compileDivMod,
		"$mod":      compileDivMod,
		"$pow":      compilePow,
		"$log":      compileLog,
		"$sum":      compileArrayAccumulator,
		"$avg":      compileArrayAccumulator,
		"$max":      compileArrayAccumulator,
		"$min":      compileArrayAccumulator,
		// trigonometry ($sin and the others are trigFuncs') and bitwise
		"$atan2":            compileAtan2,
		"$degreesToRadians": compileAngle,
		"$radiansToDegrees": compileAngle,
		"$bitAnd":           compileBitwise,
		"$bitOr":            compileBitwise,
		"$bitXor":           compileBitwise,
		"$bitNot":           compileBitNot,
		// comparison and boolean
		"$cmp": compileCompare,
		"$eq":  compileCompare,
		"$ne":  compileCompare,
		"$gt":  compileCompare,
		"$gte": compileCompare,
		"$lt":  compileCompare,
		"$lte": compileCompare,
		"$and": compileAndOr,
		"$or":  compileAndOr,
		"$not": compileNot,
		// conditional
		"$cond":   compileCond,
		"$ifNull": compileIfNull,
		"$switch": compileSwitch,
		// variables
		"$literal": compileLiteral,
		"$let":     compileLet,
		// types and conversions
		"$type":       compileType,
		"$isNumber":   compileIsNumber,
		"$toString":   compileToString,
		"$toInt":      compileToType,
		"$toLong":     compileToType,
		"$toDouble":   compileToType,
		"$toDecimal":  compileToType,
		"$toBool":     compileToType,
		"$toDate":     compileToType,
		"$toObjectId": compileToType,
		"$convert":    compileConvert,
	}
}

// textOps are the operators of strings and regular expressions.
func textOps() opTable {
	return opTable{
		// strings
		"$concat":       compileConcat,
		"$toUpper":      compileChangeCase,
		"$toLower":      compileChangeCase,
		"$substr":       compileSubstr,
		"$substrBytes":  compileSubstr,
		"$substrCP":     compileSubstr,
		"$strLenCP":     compileStrLen,
		"$strLenBytes":  compileStrLen,
		"$split":        compileSplit,
		"$trim":         compileTrim,
		"$ltrim":        compileTrim,
		"$rtrim":        compileTrim,
		"$indexOfBytes": compileIndexOfStr,
		"$indexOfCP":    compileIndexOfStr,
		"$strcasecmp":   compileStrcasecmp,
		"$replaceOne":   compileReplace,
		"$replaceAll":   compileReplace,
		// regular expressions
		"$regexMatch":   compileRegexOp,
		"$regexFind":    compileRegexOp,
		"$regexFindAll": compileRegexOp,
	}
}

// collectionOps are the operators of arrays, sets and objects.
func collectionOps() opTable {
	return opTable{
		// arrays
		"$isArray":         compileIsArray,
		"$size":            compileSize,
		"$arrayElemAt":     compileArrayElemAt,
		"$first":           compileFirstLast,
		"$last":            compileFirstLast,
		"$in":              compileIn,
		"$concatArrays":    compileConcatArrays,
		"$reduce":          compileReduce,
		"$range":           compileRange,
		"$zip":             compileZip,
		"$indexOfArray":    compileIndexOfArray,
		"$reverseArray":    compileReverseArray,
		"$sortArray":       compileSortArray,
		"$slice":           compileSliceExpr,
		"$firstN":          compileArrayN,
		"$lastN":           compileArrayN,
		"$maxN":            compileArrayN,
		"$minN":            compileArrayN,
		"$allElementsTrue": compileElementsTrue,
		"$anyElementTrue":  compileElementsTrue,
		"$filter":          compileFilterMap,
		"$map":             compileFilterMap,
		// sets
		"$setUnion":        compileSetUnion,
		"$setIntersection": compileSetIntersection,
		"$setDifference":   compileSetDifference,
		"$setEquals":       compileSetEquals,
		"$setIsSubset":     compileSetIsSubset,
		// objects
		"$mergeObjects":  compileMergeObjects,
		"$objectToArray": compileObjectToArray,
		"$arrayToObject": compileArrayToObject,
		"$getField":      compileFieldOps,
		"$setField":      compileFieldOps,
		"$unsetField":    compileFieldOps,
	}
}

// dateOps are the operators of dates, data sizes, timestamps, $rand and hashing.
func dateOps() opTable {
	return opTable{
		// dates
		"$dateAdd":        compileDateArith,
		"$dateSubtract":   compileDateArith,
		"$dateDiff":       compileDateDiff,
		"$dateTrunc":      compileDateTrunc,
		"$year":           compileDatePart,
		"$month":          compileDatePart,
		"$dayOfMonth":     compileDatePart,
		"$hour":           compileDatePart,
		"$minute":         compileDatePart,
		"$second":         compileDatePart,
		"$millisecond":    compileDatePart,
		"$dayOfWeek":      compileDatePart,
		"$dayOfYear":      compileDatePart,
		"$week":           compileDatePart,
		"$isoWeek":        compileDatePart,
		"$isoWeekYear":    compileDatePart,
		"$isoDayOfWeek":   compileDatePart,
		"$dateToString":   compileDateToString,
		"$dateFromParts":  compileDateFromParts,
		"$dateToParts":    compileDateToParts,
		"$dateFromString": compileDateFromString,
		// data sizes, timestamps and $rand
		"$bsonSize":    compileBSONSize,
		"$binarySize":  compileBinarySize,
		"$tsSecond":    compileTimestampPart,
		"$tsIncrement": compileTimestampPart,
		"$rand":        compileRand,
		// hashing
		"$toHashedIndexKey": compileToHashedIndexKey,
	}
}
