package engine

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// The comparison expression operators $cmp, $eq, $ne, $gt, $gte, $lt and
// $lte, and the boolean ones $and, $or and $not.
func init() {
	for _, op := range []string{"$cmp", "$eq", "$ne", "$gt", "$gte", "$lt", "$lte"} {
		exprOps[op] = compileCompare
	}
	exprOps["$and"] = compileAndOr
	exprOps["$or"] = compileAndOr
	exprOps["$not"] = compileNot
}

// compileCompare compares strings by the command's collation.
func compileCompare(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	k := vars.collator()
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		c := k.compare(x[0], x[1])
		switch op {
		case "$cmp":
			return vInt32(int32(c)), nil
		case "$eq":
			return vBool(c == 0), nil
		case "$ne":
			return vBool(c != 0), nil
		}
		return vBool(cmpOK(op, c)), nil
	})
}

// compileAndOr is $and and $or, which stop at the first argument that
// decides the result.
func compileAndOr(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	es, err := args(v, vars)
	if err != nil {
		return nil, err
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		for _, e := range es {
			r, err := e.eval(root, local)
			if err != nil {
				return missing, err
			}
			if op == "$and" && !truthy(r) {
				return vBool(false), nil
			}
			if op == "$or" && truthy(r) {
				return vBool(true), nil
			}
		}
		return vBool(op == "$and"), nil
	}}, nil
}

func compileNot(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return vBool(!truthy(x[0])), nil })
}
