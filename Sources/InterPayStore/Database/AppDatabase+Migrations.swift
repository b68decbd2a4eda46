import GRDB

extension AppDatabase {
    /// The schema's history: named migrations, append-only.
    ///
    /// Never edit or remove a registered migration once it has shipped: ledgers in the field have run it. Change
    /// the schema by registering a new migration after the last one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: migrateV1)
        migrator.registerMigration("v2-rates", migrate: migrateV2Rates)
        migrator.registerMigration("v3-payment-quotes", migrate: migrateV3PaymentQuotes)
        migrator.registerMigration("v4-trusted-peers", migrate: migrateV4TrustedPeers)
        migrator.registerMigration("v5-pairing-lockouts", migrate: migrateV5PairingLockouts)
        migrator.registerMigration("v6-due-payments", migrate: migrateV6DuePayments)
        migrator.registerMigration("v7-send-keys", migrate: migrateV7SendKeys)
        migrator.registerMigration("v8-static-pins", migrate: migrateV8StaticPins)
        migrator.registerMigration("v9-settlement", migrate: migrateV9Settlement)
        migrator.registerMigration("v10-subscriptions", migrate: migrateV10Subscriptions)
        migrator.registerMigration("v11-preferences", migrate: migrateV11Preferences)
        migrator.registerMigration("v12-write-path", migrate: migrateV12WritePath)
        migrator.registerMigration("v13-pending-request-counts", migrate: migrateV13PendingRequestCounts)
        migrator.registerMigration("v14-series-approval-totals", migrate: migrateV14SeriesApprovalTotals)
        migrator.registerMigration("v15-retention", migrate: migrateV15Retention)
        migrator.registerMigration("v16-paired-names", migrate: migrateV16PairedNames)
        migrator.registerMigration("v17-refunds", migrate: migrateV17Refunds)
        migrator.registerMigration("v18-bills", migrate: migrateV18Bills)
        return migrator
    }

    /// The first schema: payments, their event log, the outbox, seen messages and known peers.
    private static func migrateV1(_ db: Database) throws {
        let states = "('pending', 'accepted', 'rejected', 'cancelled', 'expired')"
        let reasonCodes = "('ALAC', 'ACLR', 'ARFR', 'AEXR')"

        // A payment: the request's terms (immutable, see the trigger below) and this side's state.
        try db.create(table: "payment") { t in
            t.primaryKey("id", .text)
                .check(sql: "length(id) = 36 AND id = lower(id)")
            t.column("role", .text).notNull()
                .check(sql: "role IN ('payee', 'payer')")
            t.column("peerID", .text).notNull()
                .check(sql: "length(peerID) = 63")
            t.column("payeeID", .text).notNull()
                .check(sql: "length(payeeID) = 63")
            t.column("payerID", .text).notNull()
                .check(sql: "length(payerID) = 63")
            t.column("amountMinor", .integer).notNull()
                .check(sql: "typeof(amountMinor) = 'integer' AND amountMinor > 0")
            t.column("currency", .text).notNull()
                .check(sql: "length(currency) = 3 AND currency GLOB '[A-Z][A-Z][A-Z]'")
            t.column("memo", .text).notNull()
                .check(sql: "length(memo) <= 200")
            t.column("category", .text)
                .check(sql: "length(category) BETWEEN 1 AND 40")
            t.column("state", .text).notNull()
                .check(sql: "state IN \(states)")
            t.column("confirmed", .boolean).notNull()
                .check(sql: "confirmed IN (0, 1)")
            t.column("reason", .text)
                .check(sql: "length(reason) <= 200")
            t.column("reasonCode", .text)
                .check(sql: "reasonCode IN \(reasonCodes)")
            t.column("createdAt", .integer).notNull()
                .check(sql: "typeof(createdAt) = 'integer' AND createdAt >= 0")
            t.column("expiresAt", .integer).notNull()
                .check(sql: "typeof(expiresAt) = 'integer'")
            t.column("updatedAt", .integer).notNull()
                .check(sql: "typeof(updatedAt) = 'integer'")
            t.check(sql: "expiresAt > createdAt")
            t.check(sql: "payeeID <> payerID")
            // The peer is the other side: the payer of our outgoing requests, the payee of incoming ones.
            t.check(sql: "peerID = CASE role WHEN 'payee' THEN payerID ELSE payeeID END")
            // Only a payer's state can be unconfirmed; the payee's word is authoritative by definition.
            t.check(sql: "role = 'payer' OR confirmed = 1")
        }
        // Lists: newest first, optionally by state or peer; statistics: accepted payments since a date.
        try db.create(index: "payment_on_createdAt", on: "payment", columns: ["createdAt"])
        try db.create(index: "payment_on_state_createdAt", on: "payment", columns: ["state", "createdAt"])
        try db.create(index: "payment_on_peerID_createdAt", on: "payment", columns: ["peerID", "createdAt"])
        // Expiry checks: the few payments that are pending or await confirmation.
        try db.create(
            index: "payment_open_on_expiresAt", on: "payment", columns: ["expiresAt"],
            condition: SQL(sql: "state = 'pending' OR confirmed = 0"))
        try db.execute(
            sql: """
                CREATE TRIGGER payment_terms_immutable
                BEFORE UPDATE OF id, role, peerID, payeeID, payerID, amountMinor, currency, memo, category, createdAt,
                    expiresAt ON payment
                WHEN NEW.id IS NOT OLD.id OR NEW.role IS NOT OLD.role OR NEW.peerID IS NOT OLD.peerID
                    OR NEW.payeeID IS NOT OLD.payeeID OR NEW.payerID IS NOT OLD.payerID
                    OR NEW.amountMinor IS NOT OLD.amountMinor OR NEW.currency IS NOT OLD.currency
                    OR NEW.memo IS NOT OLD.memo OR NEW.category IS NOT OLD.category
                    OR NEW.createdAt IS NOT OLD.createdAt OR NEW.expiresAt IS NOT OLD.expiresAt
                BEGIN
                    SELECT RAISE(ABORT, 'the terms of a payment never change');
                END;

                CREATE TRIGGER payment_never_pending_again
                BEFORE UPDATE OF state ON payment
                WHEN OLD.state <> 'pending' AND NEW.state = 'pending'
                BEGIN
                    SELECT RAISE(ABORT, 'a final payment cannot become pending again');
                END;
                """)

        // The append-only history of every transition.
        try db.create(table: "paymentEvent") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("paymentID", .text).notNull()
                .references("payment", onDelete: .restrict)
            t.column("at", .integer).notNull()
            t.column("fromState", .text)
                .check(sql: "fromState IN \(states)")
            t.column("toState", .text).notNull()
                .check(sql: "toState IN \(states)")
            t.column("cause", .text).notNull()
                .check(sql: "cause IN ('local', 'peer', 'expiry', 'ack', 'created', 'received')")
            t.column("messageID", .text)
                .check(sql: "length(messageID) = 36 AND messageID = lower(messageID)")
            t.column("detail", .text)
        }
        try db.create(index: "paymentEvent_on_paymentID", on: "paymentEvent", columns: ["paymentID", "id"])
        try db.execute(
            sql: """
                CREATE TRIGGER paymentEvent_no_update
                BEFORE UPDATE ON paymentEvent
                BEGIN
                    SELECT RAISE(ABORT, 'the payment event log is append-only');
                END;

                CREATE TRIGGER paymentEvent_no_delete
                BEFORE DELETE ON paymentEvent
                BEGIN
                    SELECT RAISE(ABORT, 'the payment event log is append-only');
                END;
                """)

        // Frames awaiting an ack, per peer, in resend order.
        try db.create(table: "outbox") { t in
            t.primaryKey("messageID", .text)
                .check(sql: "length(messageID) = 36 AND messageID = lower(messageID)")
            t.column("paymentID", .text).notNull()
                .references("payment", onDelete: .cascade)
            t.column("peerID", .text).notNull()
                .check(sql: "length(peerID) = 63")
            t.column("frame", .blob).notNull()
                .check(sql: "length(frame) > 0")
            t.column("seq", .integer).notNull().unique()
            t.column("createdAt", .integer).notNull()
            t.column("retryUntil", .integer)
            t.column("attempts", .integer).notNull().defaults(to: 0)
                .check(sql: "attempts >= 0")
            t.column("lastSentAt", .integer)
        }
        try db.create(index: "outbox_on_peerID_seq", on: "outbox", columns: ["peerID", "seq"])
        try db.create(index: "outbox_on_paymentID", on: "outbox", columns: ["paymentID"])
        try db.create(
            index: "outbox_on_retryUntil", on: "outbox", columns: ["retryUntil"],
            condition: SQL(sql: "retryUntil IS NOT NULL"))

        // Processed incoming frames with the answer we gave, for duplicates (no foreign key: an `unknown-payment`
        // answer names a payment we do not have). Message IDs are unique per sender only, so the key is both.
        try db.create(table: "seenMessage") { t in
            t.column("peerID", .text).notNull()
                .check(sql: "length(peerID) = 63")
            t.column("messageID", .text).notNull()
                .check(sql: "length(messageID) = 36 AND messageID = lower(messageID)")
            t.primaryKey(["peerID", "messageID"])
            t.column("paymentID", .text)
                .check(sql: "length(paymentID) = 36 AND paymentID = lower(paymentID)")
            t.column("receivedAt", .integer).notNull()
            t.column("response", .blob).notNull()
                .check(sql: "length(response) > 0")
        }
        try db.create(index: "seenMessage_on_paymentID", on: "seenMessage", columns: ["paymentID"])

        // Peers we have talked to.
        try db.create(table: "peer") { t in
            t.primaryKey("peerID", .text)
                .check(sql: "length(peerID) = 63")
            t.column("name", .text).notNull()
            t.column("address", .text)
            t.column("firstSeen", .integer).notNull()
            t.column("lastSeen", .integer).notNull()
            t.check(sql: "lastSeen >= firstSeen")
        }
    }

    /// Exchange rates: the last snapshot fetched for each base currency, kept so conversions still work (marked
    /// stale) when the rates service cannot be reached.
    private static func migrateV2Rates(_ db: Database) throws {
        try db.create(table: "rateSnapshot") { t in
            t.primaryKey("base", .text)
                .check(sql: "length(base) = 3 AND base GLOB '[A-Z][A-Z][A-Z]'")
            t.column("fetchedAt", .integer).notNull()
                .check(sql: "typeof(fetchedAt) = 'integer' AND fetchedAt >= 0")
            t.column("lastUpdate", .integer).notNull()
                .check(sql: "typeof(lastUpdate) = 'integer' AND lastUpdate >= 0")
            t.column("nextUpdate", .integer).notNull()
                .check(sql: "typeof(nextUpdate) = 'integer' AND nextUpdate >= 0")
            t.column("source", .text).notNull()
                .check(sql: "length(source) BETWEEN 1 AND 2000")
            // Code → rate as exact decimal text, e.g. {"EUR":"0.9013"}; never JSON numbers, which are read as doubles.
            t.column("ratesJSON", .text).notNull()
                .check(sql: "json_valid(ratesJSON) AND json_type(ratesJSON) = 'object'")
        }
    }

    /// The quote used when a payment was accepted: the amount in this side's preferred currency, the rate, and the
    /// rates' timestamp. All four are set together or not at all.
    private static func migrateV3PaymentQuotes(_ db: Database) throws {
        try db.alter(table: "payment") { t in
            t.add(column: "quoteCurrency", .text)
                .check(
                    sql: "quoteCurrency IS NULL OR (length(quoteCurrency) = 3 AND quoteCurrency GLOB '[A-Z][A-Z][A-Z]')"
                )
            t.add(column: "quoteMinor", .integer)
                .check(sql: "quoteMinor IS NULL OR (typeof(quoteMinor) = 'integer' AND quoteMinor >= 0)")
            t.add(column: "quoteRate", .text)
                .check(sql: "quoteRate IS NULL OR length(quoteRate) BETWEEN 1 AND 64")
            t.add(column: "quoteRatesAt", .integer)
        }
        try db.execute(
            sql: """
                CREATE TRIGGER payment_quote_whole
                BEFORE UPDATE OF quoteCurrency, quoteMinor, quoteRate, quoteRatesAt ON payment
                WHEN NOT ((NEW.quoteCurrency IS NULL AND NEW.quoteMinor IS NULL AND NEW.quoteRate IS NULL
                        AND NEW.quoteRatesAt IS NULL)
                    OR (NEW.quoteCurrency IS NOT NULL AND NEW.quoteMinor IS NOT NULL AND NEW.quoteRate IS NOT NULL
                        AND NEW.quoteRatesAt IS NOT NULL))
                BEGIN
                    SELECT RAISE(ABORT, 'a quote has a currency, an amount, a rate and a time, or nothing');
                END;
                """)
    }

    /// Peers paired with a verification code: trusted until the user says otherwise (`interpay untrust`).
    private static func migrateV4TrustedPeers(_ db: Database) throws {
        try db.create(table: "trustedPeer") { t in
            t.primaryKey("peerID", .text)
                .check(sql: "length(peerID) = 63")
            t.column("name", .text).notNull()
                .check(sql: "length(name) <= 63")
            t.column("pairedAt", .integer).notNull()
                .check(sql: "typeof(pairedAt) = 'integer' AND pairedAt >= 0")
        }
    }

    /// Failed pairing attempts and pairing locks per peer (PROTOCOL.md §7.9), so that a restart does not lift them.
    private static func migrateV5PairingLockouts(_ db: Database) throws {
        try db.create(table: "pairingLockout") { t in
            t.primaryKey("peerID", .text)
                .check(sql: "length(peerID) = 63")
            t.column("failures", .integer).notNull()
                .check(sql: "typeof(failures) = 'integer' AND failures >= 0")
            t.column("lockedUntil", .integer)
                .check(sql: "lockedUntil IS NULL OR (typeof(lockedUntil) = 'integer' AND lockedUntil >= 0)")
        }
    }

    /// The expiry check asks only for pending payments that are due: an index of exactly those, by due time, so that
    /// its cost follows what is due rather than the ledger's size.
    private static func migrateV6DuePayments(_ db: Database) throws {
        try db.create(
            index: "payment_pending_on_expiresAt", on: "payment", columns: ["expiresAt"],
            condition: SQL(sql: "state = 'pending'"))
    }

    /// Idempotency keys of `send`: a retried `send` finds the payment the first one created (`SendKeyRecord`).
    private static func migrateV7SendKeys(_ db: Database) throws {
        try db.create(table: "sendKey") { t in
            t.primaryKey("key", .text)
                .check(sql: "length(key) BETWEEN 1 AND 128")
            t.column("paymentID", .text).notNull()
                .references("payment", column: "id", onDelete: .cascade)
            t.column("fingerprint", .text).notNull()
            t.column("createdAt", .integer).notNull()
                .check(sql: "typeof(createdAt) = 'integer'")
        }
        try db.create(index: "sendKey_on_createdAt", on: "sendKey", columns: ["createdAt"])
    }

    /// The key first seen at each static peer's address (`--peer HOST:PORT` without an ID), so that a different key
    /// there is refused after a restart too, until `interpay untrust`.
    private static func migrateV8StaticPins(_ db: Database) throws {
        try db.create(table: "staticPin") { t in
            t.primaryKey("address", .text)
                .check(sql: "length(address) BETWEEN 1 AND 300")
            t.column("peerID", .text).notNull()
                .check(sql: "length(peerID) = 63")
            t.column("pinnedAt", .integer).notNull()
                .check(sql: "typeof(pinnedAt) = 'integer'")
        }
    }

    /// Settlement and receipts (PROTOCOL.md §8.5, §17): the states `paid` and `settled`, how and when the payment
    /// was accepted, paid and settled, and the payee's signed receipt.
    ///
    /// SQLite cannot change a CHECK constraint in place, so `payment` and `paymentEvent` are rebuilt with the wider
    /// list of states (the documented way: new table, copy, drop, rename, then the same indexes and triggers again);
    /// the migrator runs this with foreign keys off and checks them all afterwards.
    private static func migrateV9Settlement(_ db: Database) throws {
        let old = "('pending', 'accepted', 'rejected', 'cancelled', 'expired')"
        let new = "('pending', 'accepted', 'rejected', 'cancelled', 'expired', 'paid', 'settled')"
        try rebuild(db, table: "payment", replacing: old, with: new)
        try rebuild(db, table: "paymentEvent", replacing: old, with: new)
        try db.alter(table: "payment") { t in
            t.add(column: "acceptedAt", .integer)
                .check(sql: "acceptedAt IS NULL OR typeof(acceptedAt) = 'integer'")
            t.add(column: "paidAt", .integer)
                .check(sql: "paidAt IS NULL OR typeof(paidAt) = 'integer'")
            t.add(column: "settledAt", .integer)
                .check(sql: "settledAt IS NULL OR typeof(settledAt) = 'integer'")
            t.add(column: "paidMethod", .text)
                .check(sql: "paidMethod IS NULL OR paidMethod IN ('cash', 'card', 'transfer', 'other')")
            t.add(column: "paidReference", .text)
                .check(sql: "paidReference IS NULL OR length(paidReference) BETWEEN 1 AND 100")
            // The canonical text of the signed receipt (`SignedReceipt.text`).
            t.add(column: "receipt", .text)
                .check(sql: "receipt IS NULL OR length(CAST(receipt AS BLOB)) BETWEEN 2 AND 8192")
        }
        // Payments accepted before this migration: the time of their first transition to `accepted`.
        try db.execute(
            sql: """
                UPDATE payment SET acceptedAt = (
                    SELECT MIN(at) FROM paymentEvent WHERE paymentEvent.paymentID = payment.id
                        AND paymentEvent.toState = 'accepted')
                WHERE state = 'accepted'
                """)
        try db.execute(
            sql: """
                CREATE TRIGGER payment_settled_stays
                BEFORE UPDATE OF state ON payment
                WHEN OLD.state = 'settled' AND NEW.state <> 'settled'
                BEGIN
                    SELECT RAISE(ABORT, 'a settled payment stays settled');
                END;

                CREATE TRIGGER payment_receipt_kept
                BEFORE UPDATE OF receipt ON payment
                WHEN OLD.receipt IS NOT NULL AND NEW.receipt IS NOT OLD.receipt
                BEGIN
                    SELECT RAISE(ABORT, 'a stored receipt never changes');
                END;
                """)
    }

    /// Subscriptions (PROTOCOL.md §8.6): the `series` table, and each payment's series and period.
    ///
    /// A period's payment ID is derived from the series ID and the period (`SeriesMachine.instanceID`), so the
    /// payment table's primary key already refuses a second request for one period; the unique index says the same
    /// of the two columns.
    /// v11: the user's preferences changed at run time (the preferred currency), one row per name.
    private static func migrateV11Preferences(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE preference (
                    name TEXT PRIMARY KEY NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                    value TEXT NOT NULL CHECK (length(value) BETWEEN 1 AND 256)
                ) STRICT
                """)
    }

    /// v12: what every step of every payment wrote and nothing needed.
    ///
    /// - Three indexes no query uses: expiry reads `payment_pending_on_expiresAt` (v6), not
    ///   `payment_open_on_expiresAt`; nothing looks up an outbox or seen row by payment (the foreign key of
    ///   `outbox.paymentID` would use its index only when a payment is deleted or its ID changes, which the schema
    ///   refuses).
    /// - CHECK constraints of the form `column IN ('a', 'b', …)` on `payment` and `paymentEvent`: SQLite builds a
    ///   temporary table of the list each time such a statement runs, so every insert of a payment built five of them and of an event three. The same
    ///   rules as `(column = 'a' OR column = 'b' …)` accept and refuse exactly the same values (NULL included) with
    ///   none. SQLite cannot change a CHECK in place: both tables are rebuilt as in v9.
    private static func migrateV12WritePath(_ db: Database) throws {
        try db.drop(index: "payment_open_on_expiresAt")
        try db.drop(index: "outbox_on_paymentID")
        try db.drop(index: "seenMessage_on_paymentID")
        let states = ["pending", "accepted", "rejected", "cancelled", "expired", "paid", "settled"]
        try rebuild(db, table: "payment", migration: "v12") { definition in
            try definition
                .replacingList(column: "role", values: ["payee", "payer"])
                .replacingList(column: "state", values: states)
                .replacingList(column: "confirmed", values: ["0", "1"], numbers: true)
                .replacingList(column: "reasonCode", values: ["ALAC", "ACLR", "ARFR", "AEXR"])
                .replacingList(column: "paidMethod", values: ["cash", "card", "transfer", "other"])
        }
        try rebuild(db, table: "paymentEvent", migration: "v12") { definition in
            try definition
                .replacingList(column: "fromState", values: states)
                .replacingList(column: "toState", values: states)
                .replacingList(column: "cause", values: ["local", "peer", "expiry", "ack", "created", "received"])
        }
    }

    /// v13: how many requests to us each peer has pending, kept by triggers in the transaction that changes a payment.
    ///
    /// The request limits (`Ledger.pendingIncomingCount`, `Ledger.pendingIncomingCountFromUnpaired`) read these
    /// counts instead of counting rows: counting cost each request a scan of every pending one, and with limits raised
    /// to let 15,000 requests of ten peers wait, 7 ms per request at the end (a batch of 512 took seconds). A count
    /// includes pending requests already past expiry that the expiry check has not reached yet; the readers subtract
    /// those, which are few (they are due). A peer with none has no row. If `payment` is ever rebuilt, these triggers
    /// must be created again with it.
    private static func migrateV13PendingRequestCounts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE pendingRequestCount (
                    peerID TEXT PRIMARY KEY NOT NULL CHECK (length(peerID) = 63),
                    count INTEGER NOT NULL CHECK (count > 0)
                ) STRICT, WITHOUT ROWID;

                INSERT INTO pendingRequestCount (peerID, count)
                    SELECT peerID, COUNT(*) FROM payment WHERE state = 'pending' AND role = 'payer' GROUP BY peerID;

                CREATE TRIGGER payment_pending_request_added
                AFTER INSERT ON payment
                WHEN NEW.state = 'pending' AND NEW.role = 'payer'
                BEGIN
                    INSERT INTO pendingRequestCount (peerID, count) VALUES (NEW.peerID, 1)
                        ON CONFLICT (peerID) DO UPDATE SET count = count + 1;
                END;

                CREATE TRIGGER payment_pending_request_decided
                AFTER UPDATE OF state ON payment
                WHEN OLD.state = 'pending' AND NEW.state <> 'pending' AND OLD.role = 'payer'
                BEGIN
                    DELETE FROM pendingRequestCount WHERE peerID = OLD.peerID AND count = 1;
                    UPDATE pendingRequestCount SET count = count - 1 WHERE peerID = OLD.peerID;
                END;

                CREATE TRIGGER payment_pending_request_deleted
                AFTER DELETE ON payment
                WHEN OLD.state = 'pending' AND OLD.role = 'payer'
                BEGIN
                    DELETE FROM pendingRequestCount WHERE peerID = OLD.peerID AND count = 1;
                    UPDATE pendingRequestCount SET count = count - 1 WHERE peerID = OLD.peerID;
                END;
                """)
    }

    /// v14: a standing approval's total (periods or an amount) and what it has accepted so far, and when
    /// (SECURITY.md S-STRETCH). Approvals made before have a total of 12 periods from now (or the series' count
    /// when smaller), the default of `interpay approve`.
    private static func migrateV14SeriesApprovalTotals(_ db: Database) throws {
        try db.alter(table: "series") { t in
            t.add(column: "approvedPeriods", .integer)
                .check(sql: "approvedPeriods IS NULL OR (typeof(approvedPeriods) = 'integer' AND approvedPeriods > 0)")
            t.add(column: "approvedTotalMinor", .integer)
                .check(
                    sql:
                        "approvedTotalMinor IS NULL OR (typeof(approvedTotalMinor) = 'integer' AND approvedTotalMinor > 0)"
                )
            t.add(column: "autoAccepted", .integer).notNull().defaults(to: 0)
                .check(sql: "typeof(autoAccepted) = 'integer' AND autoAccepted >= 0")
            t.add(column: "autoAcceptedMinor", .integer).notNull().defaults(to: 0)
                .check(sql: "typeof(autoAcceptedMinor) = 'integer' AND autoAcceptedMinor >= 0")
            t.add(column: "autoAcceptedAt", .integer)
                .check(sql: "autoAcceptedAt IS NULL OR typeof(autoAcceptedAt) = 'integer'")
        }
        try db.execute(
            sql: """
                UPDATE series SET approvedPeriods = MIN(COALESCE(count, 12), 12)
                WHERE role = 'payer' AND capMinor IS NOT NULL
                """)
    }

    /// v15: retention (`AppDatabase.prune`). The event log stays append-only for every payment that is part of the
    /// books or still open; the events of a rejected, cancelled or expired payment may go with their payment once
    /// retention removes it, and each removal leaves a summary row in `ledgerPrune` (with the peers it forgot).
    /// The name a peer was paired under, kept when the user renames it: the user's own name for a peer is not taken
    /// for the peer changing its name.
    /// Split bills (PROTOCOL.md §8.8): the payee's bills, and each share's link (on the payer's side, to the payee's
    /// bill, scoped to that payee).
    private static func migrateV18Bills(_ db: Database) throws {
        try db.create(table: "bill") { t in
            t.column("id", .text).primaryKey().check(sql: "length(id) = 36 AND id = lower(id)")
            t.column("totalMinor", .integer).notNull().check(sql: "typeof(totalMinor) = 'integer' AND totalMinor > 0")
            t.column("currency", .text).notNull()
            t.column("memo", .text).notNull()
            t.column("category", .text)
            t.column("payers", .integer).notNull().check(sql: "payers BETWEEN 2 AND 32")
            t.column("createdAt", .integer).notNull()
            t.column("cancelledAt", .integer)
        }
        try db.alter(table: "payment") { t in
            t.add(column: "billID", .text)
                .check(sql: "billID IS NULL OR (length(billID) = 36 AND billID = lower(billID))")
            t.add(column: "billIndex", .integer).check(sql: "billIndex IS NULL OR billIndex BETWEEN 0 AND 31")
            t.add(column: "billPayers", .integer)
                .check(
                    sql:
                        "(billPayers IS NULL) = (billID IS NULL) AND (billPayers IS NULL OR billPayers BETWEEN 2 AND 32)"
                )
        }
        try db.create(
            index: "payment_on_billID", on: "payment", columns: ["billID"], condition: SQL(sql: "billID IS NOT NULL"))
    }

    /// Refunds (PROTOCOL.md §8.7): a payment may give money back of another, which it names. Indexed, because what
    /// is left to refund is summed over a payment's refunds in every refund step.
    private static func migrateV17Refunds(_ db: Database) throws {
        try db.alter(table: "payment") { t in
            t.add(column: "refundOf", .text)
                .check(
                    sql: "refundOf IS NULL OR (length(refundOf) = 36 AND refundOf = lower(refundOf) AND refundOf <> id)"
                )
        }
        try db.create(
            index: "payment_on_refundOf", on: "payment", columns: ["refundOf"],
            condition: SQL(sql: "refundOf IS NOT NULL"))
    }

    private static func migrateV16PairedNames(_ db: Database) throws {
        try db.alter(table: "trustedPeer") { t in
            t.add(column: "pairedName", .text).check(
                sql: "pairedName IS NULL OR length(pairedName) <= 63")
        }
    }

    private static func migrateV15Retention(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP TRIGGER paymentEvent_no_delete;

                CREATE TRIGGER paymentEvent_no_delete
                BEFORE DELETE ON paymentEvent
                WHEN COALESCE((SELECT state FROM payment WHERE id = OLD.paymentID), '')
                    NOT IN ('rejected', 'cancelled', 'expired')
                BEGIN
                    SELECT RAISE(ABORT, 'the payment event log is append-only');
                END;

                CREATE TABLE ledgerPrune (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL CHECK (typeof(at) = 'integer'),
                    changedBefore INTEGER NOT NULL CHECK (typeof(changedBefore) = 'integer'),
                    rejected INTEGER NOT NULL CHECK (rejected >= 0),
                    cancelled INTEGER NOT NULL CHECK (cancelled >= 0),
                    expired INTEGER NOT NULL CHECK (expired >= 0),
                    events INTEGER NOT NULL CHECK (events >= 0),
                    seenMessages INTEGER NOT NULL CHECK (seenMessages >= 0),
                    peers INTEGER NOT NULL DEFAULT 0 CHECK (peers >= 0),
                    oldest INTEGER CHECK (oldest IS NULL OR typeof(oldest) = 'integer'),
                    newest INTEGER CHECK (newest IS NULL OR typeof(newest) = 'integer')
                ) STRICT;
                """)
        // Pruning looks for final payments by last change: the few open ones are already indexed by expiry.
        try db.create(
            index: "payment_final_on_updatedAt", on: "payment", columns: ["updatedAt"],
            condition: SQL(sql: "state IN ('rejected', 'cancelled', 'expired')"))
    }

    private static func migrateV10Subscriptions(_ db: Database) throws {
        try db.create(table: "series") { t in
            t.primaryKey("id", .text)
                .check(sql: "length(id) = 36 AND id = lower(id)")
            t.column("role", .text).notNull()
                .check(sql: "role IN ('payee', 'payer')")
            t.column("peerID", .text).notNull()
                .check(sql: "length(peerID) = 63")
            t.column("payeeID", .text).notNull()
                .check(sql: "length(payeeID) = 63")
            t.column("payerID", .text).notNull()
                .check(sql: "length(payerID) = 63 AND payerID <> payeeID")
            t.column("amountMinor", .integer).notNull()
                .check(sql: "typeof(amountMinor) = 'integer' AND amountMinor > 0")
            t.column("currency", .text).notNull()
                .check(sql: "length(currency) = 3 AND currency GLOB '[A-Z][A-Z][A-Z]'")
            t.column("period", .text).notNull()
                .check(sql: "period IN ('week', 'month', 'year')")
            t.column("start", .integer).notNull()
                .check(sql: "typeof(start) = 'integer' AND start >= 0")
            t.column("count", .integer)
                .check(sql: "count IS NULL OR (typeof(count) = 'integer' AND count BETWEEN 1 AND 10000)")
            t.column("timeZone", .text).notNull()
                .check(sql: "length(timeZone) BETWEEN 1 AND 64")
            t.column("periodSeconds", .integer)
                .check(sql: "periodSeconds IS NULL OR (typeof(periodSeconds) = 'integer' AND periodSeconds > 0)")
            t.column("memo", .text).notNull()
                .check(sql: "length(memo) <= 200")
            t.column("category", .text)
                .check(sql: "length(category) BETWEEN 1 AND 40")
            t.column("state", .text).notNull()
                .check(sql: "state IN ('offered', 'approved', 'declined', 'ended')")
            t.column("capMinor", .integer)
                .check(sql: "capMinor IS NULL OR (typeof(capMinor) = 'integer' AND capMinor > 0)")
            t.column("lastIndex", .integer)
                .check(sql: "lastIndex IS NULL OR (typeof(lastIndex) = 'integer' AND lastIndex >= 0)")
            t.column("reason", .text)
                .check(sql: "length(reason) <= 200")
            t.column("endedBy", .text)
                .check(sql: "endedBy IS NULL OR endedBy IN ('payee', 'payer')")
            t.column("createdAt", .integer).notNull()
            t.column("updatedAt", .integer).notNull()
            t.column("outMessageID", .text)
                .check(
                    sql: "outMessageID IS NULL OR (length(outMessageID) = 36 AND outMessageID = lower(outMessageID))")
            t.column("outFrame", .blob)
                .check(sql: "(outFrame IS NULL) = (outMessageID IS NULL)")
        }
        try db.create(index: "series_on_peerID_state", on: "series", columns: ["peerID", "state"])
        try db.execute(
            sql: """
                CREATE TRIGGER series_final_stays
                BEFORE UPDATE OF state ON series
                WHEN OLD.state IN ('declined', 'ended') AND NEW.state <> OLD.state
                BEGIN
                    SELECT RAISE(ABORT, 'a declined or ended series stays so');
                END;

                CREATE TRIGGER series_period_never_back
                BEFORE UPDATE OF lastIndex ON series
                WHEN OLD.lastIndex IS NOT NULL AND (NEW.lastIndex IS NULL OR NEW.lastIndex < OLD.lastIndex)
                BEGIN
                    SELECT RAISE(ABORT, 'the last period requested never goes back');
                END;
                """)
        try db.alter(table: "payment") { t in
            t.add(column: "seriesID", .text)
                .check(sql: "seriesID IS NULL OR (length(seriesID) = 36 AND seriesID = lower(seriesID))")
            t.add(column: "seriesIndex", .integer)
                .check(sql: "(seriesIndex IS NULL) = (seriesID IS NULL) AND (seriesIndex IS NULL OR seriesIndex >= 0)")
        }
        try db.create(
            index: "payment_on_series", on: "payment", columns: ["seriesID", "seriesIndex"], unique: true,
            condition: SQL(sql: "seriesID IS NOT NULL"))
    }

    /// Rebuilds `table` with `old` replaced by `new` in its definition, keeping its rows, indexes and triggers.
    private static func rebuild(_ db: Database, table: String, replacing old: String, with new: String) throws {
        try rebuild(db, table: table, migration: "v9") { definition in
            guard definition.contains(old) else {
                throw DatabaseError(message: "the definition is not the expected one")
            }
            return definition.replacingOccurrences(of: old, with: new)
        }
    }

    /// Rebuilds `table` with the definition `change` makes of its current one, keeping its rows, indexes and
    /// triggers (SQLite's documented way: new table, copy, drop, rename, then the same indexes and triggers again);
    /// the migrator runs migrations with foreign keys off and checks them all afterwards.
    private static func rebuild(
        _ db: Database, table: String, migration: String, _ change: (String) throws -> String
    ) throws {
        guard
            let definition = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
        else {
            throw DatabaseError(message: "migration \(migration): no table \(table)")
        }
        let changed: String
        do {
            changed = try change(definition)
        } catch {
            throw DatabaseError(message: "migration \(migration): the definition of \(table): \(error)")
        }
        let dependents = try String.fetchAll(
            db,
            sql: """
                SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL
                """,
            arguments: [table])
        let scratch = "\(table)_\(migration)"
        guard let nameRange = changed.range(of: "\"\(table)\"") ?? changed.range(of: table) else {
            throw DatabaseError(message: "migration \(migration): cannot find the name of \(table)")
        }
        try db.execute(sql: changed.replacingCharacters(in: nameRange, with: "\"\(scratch)\""))
        try db.execute(sql: "INSERT INTO \"\(scratch)\" SELECT * FROM \"\(table)\"")
        try db.execute(sql: "DROP TABLE \"\(table)\"")
        try db.execute(sql: "ALTER TABLE \"\(scratch)\" RENAME TO \"\(table)\"")
        for statement in dependents { try db.execute(sql: statement) }
    }
}

extension String {
    /// This table definition with `column IN (a, b, …)` written `(column = a OR column = b …)`, the values SQL
    /// literals (text quoted, unless `numbers`); throws when the list is not in it as expected.
    fileprivate func replacingList(column: String, values: [String], numbers: Bool = false) throws -> String {
        let literals = numbers ? values : values.map { "'\($0)'" }
        let list = "\(column) IN (\(literals.joined(separator: ", ")))"
        guard contains(list) else { throw DatabaseError(message: "no \(list)") }
        return replacingOccurrences(
            of: list, with: "(\(literals.map { "\(column) = \($0)" }.joined(separator: " OR ")))")
    }
}
