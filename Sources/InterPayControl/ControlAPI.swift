/// The control methods: each one's name, params and result, in one list (`methods`).
///
/// The daemon answers them, `interpay` calls them (`ControlClient.call(_:_:)`), and the web app calls those whose
/// `webAccess` allows it under `/api/`. The field names of params and results are a stable contract (README);
/// `subscribe` (the event stream) is the control server's own.
public enum ControlAPI {
    /// Every method, in the order the README lists them.
    public static let methods: [any ControlMethod.Type] = [
        Status.self, Peers.self, Pair.self, Untrust.self, Rename.self, Send.self, Accept.self, Reject.self,
        Cancel.self, Paid.self, Received.self, Receipt.self, Export.self, List.self, Show.self, History.self,
        Stats.self, Convert.self, Rates.self, Currency.self, Web.self, Offer.self, Approve.self, Decline.self,
        Unsubscribe.self, Subscriptions.self,
    ]

    /// `status`: the daemon's name, IDs, ports, uptime.
    public enum Status: ControlMethod {
        public typealias Params = NoParams
        public typealias Result = DaemonStatus
        public static let name = "status"
        public static let webAccess = ControlWebAccess.get
    }

    /// `peers`: known peers, their sessions and trust.
    public enum Peers: ControlMethod {
        public typealias Params = NoParams
        public typealias Result = PeerList
        public static let name = "peers"
        public static let webAccess = ControlWebAccess.get
    }

    /// `pair`: start or confirm a pairing.
    public enum Pair: ControlMethod {
        public typealias Params = PairParams
        public typealias Result = PairingInfo
        public static let name = "pair"
        public static let webAccess = ControlWebAccess.post
    }

    /// `untrust`: forget a pairing and a static pin.
    public enum Untrust: ControlMethod {
        public typealias Params = PeerParams
        public typealias Result = UntrustInfo
        public static let name = "untrust"
        public static let webAccess = ControlWebAccess.post
    }

    /// `rename`: the name a paired peer is shown under.
    public enum Rename: ControlMethod {
        public typealias Params = RenameParams
        public typealias Result = PeerIdentity
        public static let name = "rename"
        public static let webAccess = ControlWebAccess.post
    }

    /// `send`: ask a peer to pay.
    public enum Send: ControlMethod {
        public typealias Params = SendParams
        public typealias Result = PaymentInfo
        public static let name = "send"
        public static let webAccess = ControlWebAccess.post
    }

    /// `accept`: agree to pay a request.
    public enum Accept: ControlMethod {
        public typealias Params = PaymentParams
        public typealias Result = PaymentInfo
        public static let name = "accept"
        public static let webAccess = ControlWebAccess.post
    }

    /// `reject {payment, reason?}`: decline to pay a request.
    public enum Reject: ControlMethod {
        public typealias Params = PaymentParams
        public typealias Result = PaymentInfo
        public static let name = "reject"
        public static let webAccess = ControlWebAccess.post
    }

    /// `cancel`: withdraw a pending request.
    public enum Cancel: ControlMethod {
        public typealias Params = PaymentParams
        public typealias Result = PaymentInfo
        public static let name = "cancel"
        public static let webAccess = ControlWebAccess.post
    }

    /// `paid {payment, method?, reference?}`: the payer handed the money over.
    public enum Paid: ControlMethod {
        public typealias Params = PaymentParams
        public typealias Result = PaymentInfo
        public static let name = "paid"
        public static let webAccess = ControlWebAccess.post
    }

    /// `received`: the payee confirms the money arrived.
    public enum Received: ControlMethod {
        public typealias Params = PaymentParams
        public typealias Result = PaymentInfo
        public static let name = "received"
        public static let webAccess = ControlWebAccess.post
    }

    /// `receipt`: a settled payment's signed receipt.
    public enum Receipt: ControlMethod {
        public typealias Params = PaymentParams
        public typealias Result = ReceiptInfo
        public static let name = "receipt"
        public static let webAccess = ControlWebAccess.post
    }

    /// `export`: payments for the books, oldest first (only on the control socket: the CLI writes the file).
    public enum Export: ControlMethod {
        public typealias Params = ExportParams
        public typealias Result = PaymentList
        public static let name = "export"
    }

    /// `list`: payments, newest first.
    public enum List: ControlMethod {
        public typealias Params = ListParams
        public typealias Result = PaymentList
        public static let name = "list"
        public static let webAccess = ControlWebAccess.get
    }

    /// `show`: one payment with its events.
    public enum Show: ControlMethod {
        public typealias Params = PaymentParams
        public typealias Result = PaymentDetailInfo
        public static let name = "show"
        public static let webAccess = ControlWebAccess.post
    }

    /// `history {limit?}`: decided payments, newest first.
    public enum History: ControlMethod {
        public typealias Params = ListParams
        public typealias Result = PaymentList
        public static let name = "history"
        public static let webAccess = ControlWebAccess.get
    }

    /// `stats`: totals, counts and averages.
    public enum Stats: ControlMethod {
        public typealias Params = StatsParams
        public typealias Result = StatsInfo
        public static let name = "stats"
        public static let webAccess = ControlWebAccess.get
    }

    /// `convert`: an amount in another currency.
    public enum Convert: ControlMethod {
        public typealias Params = ConvertParams
        public typealias Result = ConvertedAmount
        public static let name = "convert"
        public static let webAccess = ControlWebAccess.post
    }

    /// `rates`: the exchange rates' source and age.
    public enum Rates: ControlMethod {
        public typealias Params = RatesParams
        public typealias Result = RatesInfo
        public static let name = "rates"
        public static let webAccess = ControlWebAccess.get
    }

    /// `currency`: show or change the preferred currency.
    public enum Currency: ControlMethod {
        public typealias Params = CurrencyParams
        public typealias Result = PreferredCurrencyInfo
        public static let name = "currency"
        public static let webAccess = ControlWebAccess.post
    }

    /// `web`: the web app's login URL (only on the control socket: it hands out the token).
    public enum Web: ControlMethod {
        public typealias Params = NoParams
        public typealias Result = WebLogin
        public static let name = "web"
    }

    /// `offer`: offer a subscription (the CLI's `subscribe`; `subscribe` is the event stream).
    public enum Offer: ControlMethod {
        public typealias Params = OfferParams
        public typealias Result = SeriesInfo
        public static let name = "offer"
    }

    /// `approve {series, max?}`: approve a subscription offered to us.
    public enum Approve: ControlMethod {
        public typealias Params = SeriesParams
        public typealias Result = SeriesInfo
        public static let name = "approve"
    }

    /// `decline {series, reason?}`: decline a subscription offered to us.
    public enum Decline: ControlMethod {
        public typealias Params = SeriesParams
        public typealias Result = SeriesInfo
        public static let name = "decline"
    }

    /// `unsubscribe {series, reason?}`: end a subscription.
    public enum Unsubscribe: ControlMethod {
        public typealias Params = SeriesParams
        public typealias Result = SeriesInfo
        public static let name = "unsubscribe"
    }

    /// `subscriptions`: every series, both sides.
    public enum Subscriptions: ControlMethod {
        public typealias Params = NoParams
        public typealias Result = SeriesList
        public static let name = "subscriptions"
    }
}
