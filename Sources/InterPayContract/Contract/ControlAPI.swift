/// The control methods: each one's name, params and result, and in `routes` (the one list of them) the
/// `ControlService` requirement that answers it.
///
/// The daemon answers them, `interpay` calls them (`ControlClient.call(_:_:)`), and the web app calls those whose
/// `webAccess` allows it under `/api/`. The field names of params and results are a stable contract (docs/control-api.md);
/// `subscribe` (the event stream) is the control server's own.
public enum ControlAPI {
    /// Every method, in the order docs/control-api.md lists them: those of `routes`.
    public static let methods: [any AnyControlMethod] = routes.map(\.method)

    /// `status`: the daemon's name, IDs, ports, uptime.
    public static let status = ControlMethod<NoParams, DaemonStatus>("status", web: .get)
    /// `peers`: known peers, their sessions and trust.
    public static let peers = ControlMethod<NoParams, PeerList>("peers", web: .get)
    /// `pair {peer, code?}`: start or confirm a pairing.
    public static let pair = ControlMethod<PairParams, PairingInfo>("pair", web: .post)
    /// `untrust {peer}`: forget a pairing and a static pin.
    public static let untrust = ControlMethod<PeerParams, UntrustInfo>("untrust", web: .post)
    /// `rename {peer, name}`: the name a paired peer is shown under.
    public static let rename = ControlMethod<RenameParams, PeerIdentity>("rename", web: .post)
    /// `send`: ask a peer to pay.
    public static let send = ControlMethod<SendParams, PaymentInfo>("send", web: .post)
    /// `accept {payment}`: agree to pay a request.
    public static let accept = ControlMethod<PaymentParams, PaymentInfo>("accept", web: .post)
    /// `reject {payment, reason?}`: decline to pay a request.
    public static let reject = ControlMethod<PaymentParams, PaymentInfo>("reject", web: .post)
    /// `cancel {payment}`: withdraw a pending request.
    public static let cancel = ControlMethod<PaymentParams, PaymentInfo>("cancel", web: .post)
    /// `paid {payment, method?, reference?}`: the payer handed the money over.
    public static let paid = ControlMethod<PaymentParams, PaymentInfo>("paid", web: .post)
    /// `received {payment}`: the payee confirms the money arrived.
    public static let received = ControlMethod<PaymentParams, PaymentInfo>("received", web: .post)
    /// `refund {payment, amount?, memo?}`: the payee gives back all or part of an accepted payment.
    public static let refund = ControlMethod<RefundParams, PaymentInfo>("refund", web: .post)
    /// `split`: ask several payers for their shares of one bill.
    public static let split = ControlMethod<SplitParams, BillInfo>("split", web: .post)
    /// `bills`: this daemon's split bills, newest first.
    public static let bills = ControlMethod<NoParams, BillList>("bills", web: .get)
    /// `cancel-bill {bill}`: cancel a bill's pending shares.
    public static let cancelBill = ControlMethod<BillParams, BillInfo>("cancel-bill", web: .post)
    /// `receipt {payment}`: a settled payment's signed receipt.
    public static let receipt = ControlMethod<PaymentParams, ReceiptInfo>("receipt", web: .post)
    /// `export`: payments for the books, oldest first (only on the control socket: the CLI writes the file).
    public static let export = ControlMethod<ExportParams, PaymentList>("export")
    /// `backup`: a consistent snapshot of the ledger with the identity key and the configuration, written as one file
    /// in the state directory (only on the control socket: the CLI moves it where the user asked).
    public static let backup = ControlMethod<BackupParams, BackupInfo>("backup")
    /// `list`: payments, newest first.
    public static let list = ControlMethod<ListParams, PaymentList>("list", web: .get)
    /// `show {payment}`: one payment with its events.
    public static let show = ControlMethod<PaymentParams, PaymentDetailInfo>("show", web: .post)
    /// `history {limit?}`: decided payments, newest first.
    public static let history = ControlMethod<ListParams, PaymentList>("history", web: .get)
    /// `stats`: totals, counts and averages.
    public static let stats = ControlMethod<StatsParams, StatsInfo>("stats", web: .get)
    /// `convert`: an amount in another currency.
    public static let convert = ControlMethod<ConvertParams, ConvertedAmount>("convert", web: .post)
    /// `rates`: the exchange rates' source and age.
    public static let rates = ControlMethod<RatesParams, RatesInfo>("rates", web: .get)
    /// `currency`: show or change the preferred currency.
    public static let currency = ControlMethod<CurrencyParams, PreferredCurrencyInfo>("currency", web: .post)
    /// `web`: the web app's login URL (only on the control socket: it hands out the token).
    public static let web = ControlMethod<NoParams, WebLogin>("web")
    /// `offer`: offer a subscription (the CLI's `subscribe`; `subscribe` is the event stream).
    public static let offer = ControlMethod<OfferParams, SeriesInfo>("offer", web: .post)
    /// `approve {series, max?}`: approve a subscription offered to us.
    public static let approve = ControlMethod<SeriesParams, SeriesInfo>("approve", web: .post)
    /// `decline {series, reason?}`: decline a subscription offered to us.
    public static let decline = ControlMethod<SeriesParams, SeriesInfo>("decline", web: .post)
    /// `unsubscribe {series, reason?}`: end a subscription.
    public static let unsubscribe = ControlMethod<SeriesParams, SeriesInfo>("unsubscribe", web: .post)
    /// `subscriptions`: every series, both sides.
    public static let subscriptions = ControlMethod<NoParams, SeriesList>("subscriptions", web: .get)
}
