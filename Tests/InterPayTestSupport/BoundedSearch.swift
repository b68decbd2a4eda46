/// A bounded exhaustive search of a pure decider: every sequence of `depth` steps from each root world, each step
/// applied by `apply`, which returns a sentence when the step broke one of the decider's rules.
///
/// A step that broke a rule is not searched further; the search stops looking once five have been found.
/// - Returns: how many sequences were explored to their full depth, and each failure with the steps that led to it.
public func searchEverySequence<World, Step: CustomStringConvertible>(
    from roots: [World], steps: [Step], depth: Int, apply: (Step, inout World) -> String?
) -> (sequences: Int, failures: [String]) {
    var sequences = 0
    var failures: [String] = []
    func search(_ world: World, _ trail: [Step], depth: Int) {
        guard depth > 0, failures.count < 5 else {
            sequences += 1
            return
        }
        for step in steps {
            var next = world
            if let problem = apply(step, &next) {
                failures.append("\((trail + [step]).map(\.description)): \(problem)")
                continue
            }
            search(next, trail + [step], depth: depth - 1)
        }
    }
    for root in roots { search(root, [], depth: depth) }
    return (sequences, failures)
}

/// The number of sequences `searchEverySequence` explores from `roots` roots with `steps` steps to `depth`, when no
/// step breaks a rule.
public func everySequenceCount(roots: Int, steps: Int, depth: Int) -> Int {
    (0..<depth).reduce(roots) { size, _ in size * steps }
}
