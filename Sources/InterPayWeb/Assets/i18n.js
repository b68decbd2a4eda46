// The web app's words in English and Spanish.
export const strings = {
  en: {
    language: "Language", nearby: "Nearby", request: "Request", inbox: "Inbox", history: "History", sales: "Sales",
    converter: "Converter", profile: "Profile", name: "Name", shortID: "Short ID", session: "Session", trust: "Trust",
    peer: "Peer", amount: "Amount", currency: "Currency", memo: "Memo",
    category: "Category", expiry: "Expires in (minutes)", send: "Request", incoming: "Incoming", outgoing: "Outgoing",
    state: "State", any: "Any", direction: "Side", in: "Purchase", out: "Sale", since: "Since", when: "When",
    period: "Period", week: "Week", month: "Month", count: "Count", total: "Total", average: "Average",
    byCategory: "By category", from: "From", to: "To", convert: "Convert", peerID: "Peer ID", version: "Version",
    preferredCurrency: "Preferred currency", save: "Save", fromConfiguration: "from the configuration",
    yourChoice: "your choice", none: "none",
    unverified: "unverified", paired: "paired", up: "up", down: "down", pair: "Pair", untrust: "Untrust",
    accept: "Accept", reject: "Reject", cancel: "Cancel", pending: "pending", accepted: "accepted", paid: "paid",
    settled: "settled", rejected: "rejected", cancelled: "cancelled", expired: "expired", requested: "Requested",
    expiresIn: "Expires in", rate: "rate", stale: "stale rates", none: "none",
    noChart: "Chart.js is not installed (Debian: libjs-chart.js).", quote: "Quote", rename: "Rename",
    ratesFrom: "Rates from", announces: "announces", nameChanged: "name changed", choosePeer: "Choose a peer",
    pairingWith: "Pairing with", yourCode: "Your code:", theirCode: "The code the other screen shows",
    compare: "Check that the other screen shows your code, then type the code it shows and confirm.",
    confirm: "Confirm", id: "ID", awaitingPayee: "awaiting payee", markPaid: "Mark paid", received: "Received",
    receipt: "Receipt", method: "Method", reference: "Reference", cash: "cash", card: "card", transfer: "transfer",
    other: "other", paidWith: "Paid with", downloadReceipt: "Download the receipt",
    receiptVerified: "Signed by the payee; its signature was checked when it arrived.",
    receiptSigned: "Signed by your daemon and sent to the payer.",
    verifyOffline: "Anyone can check the file offline: interpay verify-receipt FILE",
    awaitingPayment: "Waiting for the payer to pay", awaitingConfirmation: "Waiting for the payee to confirm",
    subscriptions: "Subscriptions", offerSeries: "Offer a subscription", everyLabel: "Every", every: "every",
    year: "year", periods: "Periods (empty: until ended)", offer: "Offer", offered: "offered", approved: "approved",
    declined: "declined", ended: "ended", of: "of", requestedPeriods: "Requested", acceptedPeriods: "Accepted",
    paidPeriods: "Paid", cap: "Cap per period", nextDue: "Next due", approve: "Approve", changeCap: "Change the cap",
    decline: "Decline", endSeries: "End", testPeriod: "test period", seconds: "seconds",
    namePeer: "Not paired: type its short ID to approve",
    notifyMe: "Notify me", notifyRequest: "Payment request", asksYou: "asks you to pay",
    notifyOffer: "Subscription offered", notifyPairing: "Pairing request",
    queuedNotice: "Queued, resent until it is acknowledged: not yet acknowledged by",
    nothingIn: "No requests for you right now.", nothingOut: "Nothing you asked for lately.",
    whenAccepted: "when accepted",
    receiptLine: "Receipt for payment {id}: {amount} from {payer} to {payee}, settled {when}.",
  },
  es: {
    language: "Idioma", nearby: "Cerca", request: "Cobrar", inbox: "Bandeja", history: "Historial", sales: "Ventas",
    converter: "Conversor", profile: "Perfil", name: "Nombre", shortID: "ID corto", session: "Sesión",
    trust: "Confianza", peer: "Contacto", amount: "Importe", currency: "Moneda",
    memo: "Concepto", category: "Categoría", expiry: "Vence en (minutos)", send: "Cobrar", incoming: "Recibidas",
    outgoing: "Enviadas", state: "Estado", any: "Cualquiera", direction: "Tipo", in: "Compra", out: "Venta",
    since: "Desde", when: "Fecha", period: "Periodo", week: "Semana", month: "Mes", count: "Cantidad",
    total: "Total", average: "Promedio", byCategory: "Por categoría", from: "De", to: "A", convert: "Convertir",
    peerID: "ID del nodo", version: "Versión", preferredCurrency: "Moneda preferida", save: "Guardar",
    fromConfiguration: "de la configuración", yourChoice: "elegida por ti", none: "ninguna", unverified: "sin verificar", paired: "emparejado", up: "activa",
    down: "inactiva", pair: "Emparejar", untrust: "Olvidar", accept: "Aceptar", reject: "Rechazar",
    cancel: "Cancelar", pending: "pendiente", accepted: "aceptado", paid: "pagado", settled: "liquidado",
    rejected: "rechazado", cancelled: "cancelado", expired: "vencido", requested: "Cobro enviado",
    expiresIn: "Vence en", rate: "tipo", stale: "tipos desactualizados",
    none: "ninguna", noChart: "Chart.js no está instalado (Debian: libjs-chart.js).", quote: "Cotización",
    rename: "Renombrar", ratesFrom: "Tipos de", announces: "se anuncia como", nameChanged: "nombre cambiado",
    choosePeer: "Elige un contacto", pairingWith: "Emparejando con", yourCode: "Tu código:",
    theirCode: "El código que muestra la otra pantalla",
    compare: "Comprueba que la otra pantalla muestra tu código; luego escribe el código que muestra y confirma.",
    confirm: "Confirmar", id: "ID", awaitingPayee: "esperando al cobrador", markPaid: "Marcar pagado",
    received: "Recibido", receipt: "Recibo", method: "Medio", reference: "Referencia", cash: "efectivo",
    card: "tarjeta", transfer: "transferencia", other: "otro", paidWith: "Pagado con",
    downloadReceipt: "Descargar el recibo",
    receiptVerified: "Firmado por el cobrador; su firma se comprobó al llegar.",
    receiptSigned: "Firmado por tu nodo y enviado al pagador.",
    verifyOffline: "Cualquiera puede comprobar el archivo sin conexión: interpay verify-receipt ARCHIVO",
    awaitingPayment: "Esperando el pago", awaitingConfirmation: "Esperando que el cobrador confirme",
    subscriptions: "Suscripciones", offerSeries: "Ofrecer una suscripción", everyLabel: "Cada", every: "cada",
    year: "año", periods: "Periodos (vacío: hasta que se termine)", offer: "Ofrecer", offered: "ofrecida",
    approved: "aprobada", declined: "rechazada", ended: "terminada", of: "de", requestedPeriods: "Cobrados",
    acceptedPeriods: "Aceptados", paidPeriods: "Pagados", cap: "Tope por periodo", nextDue: "Próximo cobro",
    approve: "Aprobar", changeCap: "Cambiar el tope", decline: "Rechazar", endSeries: "Terminar",
    testPeriod: "periodo de prueba", seconds: "segundos",
    namePeer: "Sin emparejar: escribe su ID corto para aprobar",
    notifyMe: "Avisarme", notifyRequest: "Solicitud de pago", asksYou: "te pide",
    notifyOffer: "Suscripción ofrecida", notifyPairing: "Solicitud de emparejamiento",
    queuedNotice: "En cola, se reenvía hasta que lo confirme: aún sin confirmar por",
    nothingIn: "No tienes solicitudes por ahora.", nothingOut: "No has cobrado nada últimamente.",
    whenAccepted: "al aceptarlo",
    receiptLine: "Recibo del pago {id}: {amount} de {payer} a {payee}, liquidado el {when}.",
  },
};

// The daemon's errors in each language but English, by the `reason` of the error's data and the values it carries
// (docs/control-api.md, "Errors"); English pages show the daemon's own sentence. A reason without words here, and
// an error without a reason, fall back to the words for its HTTP status, then to `other`.
const esField = { memo: "El concepto", reason: "El motivo", reference: "La referencia", name: "El nombre",
  cap: "El tope", total: "El total", "--max": "El tope", "--total": "El total" };
const esKind = { payment: "el pago", peer: "el contacto", series: "la suscripción" };
const esDecided = { ALAC: "ya estaba aceptado", ACLR: "ya estaba cancelado", ARFR: "ya estaba rechazado",
  AEXR: "ya había vencido" };
// A decision on a payment since paid or settled loses with ALAC too: the state says where it is.
const esDecidedState = { paid: "ya estaba pagado", settled: "ya estaba liquidado" };
const writeAmount = "escribe cifras con un separador decimal opcional, p. ej. 12,50";
export const errorWords = {
  es: {
    amountEmpty: () => `No se indicó un importe (${writeAmount}).`,
    amountInvalid: (v) => `«${v.text}» no es un importe (${writeAmount} o 0,50).`,
    amountNotANumber: (v) => `«${v.text}» no es un número (${writeAmount}).`,
    amountSign: (v) => `«${v.text}» lleva signo: escribe solo el importe.`,
    amountExponent: (v) => `«${v.text}» lleva exponente: escribe el importe completo, p. ej. 1000 en vez de 1e3.`,
    amountGrouping: (v) => `«${v.text}» lleva separadores de miles: quítalos, p. ej. 1000,00 en vez de 1.000,00.`,
    amountAmbiguous: (v) => `«${v.text}» podría ser mil veces más o menos: escríbelo sin separador de miles y con ` +
      "el separador decimal del idioma elegido.",
    amountNotPositive: (v) => `«${v.text}» no es mayor que cero: los importes son positivos (el tipo de ` +
      "operación dice quién paga).",
    amountTooManyDecimals: (v) => v.allowed === "0"
      ? `${v.currency} no tiene decimales: «${v.text}».`
      : `${v.currency} admite como mucho ${v.allowed} decimal${v.allowed === "1" ? "" : "es"}: «${v.text}».`,
    amountOverflow: (v) => `El importe «${v.text}» es demasiado grande.`,
    currencyInvalid: (v) => `«${v.code}» no es un código de moneda (tres letras, p. ej. EUR).`,
    currencyUnknown: (v) => `Moneda desconocida: «${v.code}» (no es un código ISO 4217 vigente).`,
    missingParameter: (v) => `Falta un dato: ${strings.es[v.param] || v.param}.`,
    textRefused: (v) => `${esField[v.field] || "El texto"} admite como mucho ${v.max} caracteres, sin caracteres ` +
      "de control.",
    expiryRange: () => "El vencimiento va de 1 segundo a 30 días.",
    periodsRange: (v) => `El número de periodos va de 1 a ${v.max}.`,
    pairingCodeFormat: () => "El código de verificación tiene 6 cifras, p. ej. 123456.",
    notFound: (v) => v.kind === "receipt"
      ? `El pago ${v.text} no tiene recibo (solo un pago liquidado lo tiene).`
      : `No se encontró ${esKind[v.kind] || "el registro"} «${v.text}»: quizá ya no existe; recarga la página.`,
    ambiguous: (v) => `«${v.text}» coincide con varios: escribe más caracteres del ID.`,
    conflict: (v) =>
      `No se hizo nada: el pago ${esDecidedState[v.state] || esDecided[v.reasonCode] || "ya estaba decidido"}.`,
    alreadySettled: () => "El pago ya está marcado como pagado o liquidado.",
    keyReused: () => "Esta clave ya se usó en las últimas 24 horas para otra solicitud; no se envió nada.",
    peerUnreachable: (v) => `Sin sesión con ${v.peer}: no se le puede contactar ahora. Inténtalo cuando aparezca ` +
      "como activo en Cerca.",
    seriesUnpaired: (v) => `La oferta viene de ${v.peer}, un contacto sin emparejar (sin verificar): emparéjalo ` +
      "primero, o escribe su ID corto si sabes que es quien crees.",
    seriesAmount: (v) => `${esField[v.field] || "El importe"} debe ser mayor que cero y en la moneda de la ` +
      `suscripción (${v.currency}).`,
    seriesPeerMismatch: (v) => `Ese no es el ID del contacto que ofreció la suscripción (${v.peer}).`,
    notPermitted: (_, message) => `Esta acción no está permitida aquí (${message}).`,
    invalid: (_, message) => `La solicitud no es válida (${message}).`,
    ratesUnavailable: () => "Los tipos de cambio no están disponibles ahora; el nodo los reintenta solo.",
    ratesUnsupportedCurrency: (v) => `Los tipos de cambio no incluyen ${v.code}.`,
    webUnavailable: () => "La aplicación web está desactivada en este nodo.",
    internalError: (_, message) => `El nodo falló al atender la solicitud (${message}); consulta su registro.`,
    status401: () => "La sesión web caducó o no es válida: abre otra vez el enlace que da «interpay web».",
    status403: () => "El nodo rechazó la solicitud (origen o usuario no admitido).",
    status413: () => "La solicitud es demasiado grande.",
    status429: () => "Demasiadas solicitudes seguidas: espera un momento.",
    other: (_, message) => `El nodo rechazó la solicitud (${message}).`,
  },
};
