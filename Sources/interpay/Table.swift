/// Prints rows as left-aligned columns separated by two spaces.
struct Table {
    let headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) {
        self.headers = headers
    }

    /// A table of the columns `columns`, for a set of columns known at run time.
    init(columns: [String]) {
        self.headers = columns
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    /// Adds a row of `cells`, one per column.
    mutating func add(cells: [String]) {
        rows.append(cells)
    }

    func print() {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
        for row in all {
            let line = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
            Swift.print(line)
        }
    }
}
