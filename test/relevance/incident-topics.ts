/**
 * A labelled retrieval set for search by meaning (docs/search.md, "Quality"), written for it: incidents in
 * incident.io's shape (name, summary), each topic with two incidents that mean it in different words, and five
 * queries a person or an agent would ask for them: two paraphrases, one with synonyms, one with typos, and one
 * question padded with filler words. NEGATIVES are questions no incident answers. test/relevance/relevance-set.ts
 * turns it into records and judgements; `pnpm bench:relevance` and test/e2e/search-semantic.test.ts read it.
 */
export type Topic = readonly [
  id: string,
  incidents: readonly (readonly [name: string, summary: string])[],
  queries: readonly string[],
];

export const TOPICS: readonly Topic[] = [
  [
    'checkout',
    [
      [
        'Checkout outage for card payments',
        'Customers could not pay at checkout; the payment provider rejected every card.',
      ],
      ['Orders failing at the payment step', 'Purchases errored when buyers confirmed their basket.'],
    ],
    [
      'people cannot buy anything on the site',
      'payments broken during checkout',
      'purchase flow down, transactions declined',
      'chekout paymnets falling',
      'what was the incident where customers were not able to pay for their orders',
    ],
  ],
  [
    'login',
    [
      ['Users unable to sign in', 'The identity service returned 500 on every login attempt.'],
      [
        'SSO authentication broken for enterprise tenants',
        'SAML assertions were rejected after a certificate rotation.',
      ],
    ],
    [
      'customers locked out of their accounts',
      'sign-on failing after cert change',
      'authentication outage, credentials refused',
      'loggin failurs for users',
      'was there a time when people could not log in to the app',
    ],
  ],
  [
    'database-load',
    [
      ['Primary database CPU saturated', 'A missing index made a report query scan the orders table.'],
      ['Postgres replica lag above ten minutes', 'Replication fell behind during a bulk import.'],
    ],
    [
      'db overloaded by slow queries',
      'replica falling behind the primary',
      'SQL server struggling under heavy load',
      'databse cpu at hundred percent',
      'the one where the database was really slow because of a query',
    ],
  ],
  [
    'dns',
    [
      ['DNS resolution failures in eu-west', 'Our resolver could not reach the authoritative name servers.'],
      ['Domain records expired', 'The registrar let the zone lapse and the site disappeared.'],
    ],
    [
      'hostnames not resolving',
      'website unreachable because the domain lapsed',
      'name server lookup errors',
      'dsn resolution broken',
      'what happened when our domain stopped resolving for everyone',
    ],
  ],
  [
    'webhooks',
    [
      ['Outgoing webhooks delayed by hours', 'The delivery queue backed up behind a stuck consumer.'],
      ['Partner callbacks not delivered', 'Notifications to integration endpoints were dropped after a deploy.'],
    ],
    [
      'event notifications arriving very late',
      'callbacks to customers never sent',
      'HTTP hooks lagging, queue backlog',
      'webhok deliveries delayd',
      'is there an incident about customers not receiving our callbacks',
    ],
  ],
  [
    'email',
    [
      ['Password reset emails not sent', 'The mail provider suspended our sending domain.'],
      ['Transactional mail bouncing', 'SPF misconfiguration made receipts land in spam or bounce.'],
    ],
    [
      'users never got their reset link',
      'receipts going to junk folders',
      'outbound e-mail failing',
      'emial delivery problms',
      'were there problems with the messages we send to customers by mail',
    ],
  ],
  [
    'search-index',
    [
      ['Product search returning no results', 'The search cluster lost its index after a node restart.'],
      ['Catalogue lookup stale for a day', 'Indexing jobs stopped so new items could not be found.'],
    ],
    [
      'cannot find products on the shop',
      'new items missing from search',
      'search engine index empty',
      'serch results emtpy',
      'the time when searching the catalog gave nothing back',
    ],
  ],
  [
    'mobile-crash',
    [
      ['iOS app crashing on launch', 'A null pointer in the onboarding screen crashed version 5.2.'],
      ['Android app closes when opening cart', 'An out-of-memory error killed the app on older phones.'],
    ],
    [
      'phone app keeps quitting',
      'mobile application crashes at startup',
      'app dies when users open the basket',
      'andriod crsh on cart',
      'did the app on phones crash for a lot of users',
    ],
  ],
  [
    'certificate',
    [
      ['TLS certificate expired on the API', 'Clients saw handshake failures until the certificate was renewed.'],
      ['Browser security warnings on the dashboard', 'An intermediate certificate was missing from the chain.'],
    ],
    [
      'https handshake errors for clients',
      'SSL cert ran out',
      'browsers warn the site is not secure',
      'certifcate expird',
      'what was the issue with the secure connection to our api',
    ],
  ],
  [
    'disk-full',
    [
      ['Log volume filled the disk', 'Application servers stopped writing when /var reached 100%.'],
      ['Storage exhausted on build agents', 'CI machines ran out of space and builds failed.'],
    ],
    [
      'servers out of storage space',
      'no space left on device',
      'drives full, writes failing',
      'disk ful on hosts',
      'do we have any incidents where the machines ran out of space',
    ],
  ],
  [
    'memory-leak',
    [
      ['Worker processes growing until OOM killed', 'A cache without eviction leaked memory in the sync worker.'],
      ['API pods restarting every hour', 'Heap usage climbed steadily until the container limit was hit.'],
    ],
    [
      'out of memory restarts',
      'RAM usage keeps climbing',
      'containers killed for exceeding their memory',
      'memroy leek in workers',
      'why were the services restarting all the time because of memory',
    ],
  ],
  [
    'rate-limit',
    [
      ['Third-party API throttling our requests', 'The shipping partner answered 429 to most calls.'],
      ['Customers hitting request quotas', 'A bad default made every client exceed its per-minute allowance.'],
    ],
    [
      'too many requests errors',
      'vendor throttled our calls',
      'quota exceeded for API clients',
      'rate limted by provider',
      'was there a time we got blocked for sending too many calls',
    ],
  ],
  [
    'deploy-rollback',
    [
      ['Bad release rolled back', 'Version 3.14 broke the settings page and was reverted.'],
      ['Faulty migration in production', 'A schema change locked a table; the deploy was undone.'],
    ],
    [
      'reverted a broken deployment',
      'release caused errors and we undid it',
      'shipping a bad build to prod',
      'deplyo roll bak',
      'the incident where we had to revert what we shipped',
    ],
  ],
  [
    'latency',
    [
      ['API response times tripled', 'p99 latency went from 200 ms to 2 s after a config change.'],
      ['Dashboard pages loading slowly', 'Rendering took over ten seconds for large accounts.'],
    ],
    [
      'everything is slow',
      'requests taking much longer than usual',
      'high response time on endpoints',
      'latancy spike on api',
      'why was the product so sluggish for customers',
    ],
  ],
  [
    'data-loss',
    [
      ['Customer files deleted by cleanup job', 'A retention script removed documents that were still in use.'],
      ['Records missing after restore', 'A backup restore skipped the last six hours of writes.'],
    ],
    [
      'user documents disappeared',
      'lost data after recovery from backup',
      'information erased by mistake',
      'data los after restor',
      'did we ever lose customer data',
    ],
  ],
  [
    'billing',
    [
      ['Customers charged twice', 'A retry in the invoicing job created duplicate charges.'],
      ['Invoices with wrong amounts', 'Tax was applied twice to EU subscriptions.'],
    ],
    [
      'double billing of subscribers',
      'incorrect totals on invoices',
      'overcharged clients',
      'dubble charge on invoces',
      'is there an incident where people paid more than they should',
    ],
  ],
  [
    'notifications-push',
    [
      ['Push notifications not delivered', 'The APNs key expired and no iOS alerts went out.'],
      ['Mobile alerts sent repeatedly', 'A loop sent the same push to users dozens of times.'],
    ],
    [
      'phones not getting alerts',
      'users spammed with duplicate notifications',
      'push messaging broken',
      'push notifcations missng',
      'what happened with the alerts on mobile phones',
    ],
  ],
  [
    'cdn',
    [
      ['Static assets not loading', 'The CDN served 403 for images and scripts after a config push.'],
      ['Edge cache serving stale pages', 'Purges failed so old prices were shown for hours.'],
    ],
    [
      'images and css missing on the site',
      'content delivery network errors',
      'cached pages out of date',
      'cdn asets broken',
      'why did the website look broken without pictures',
    ],
  ],
  [
    'queue-backlog',
    [
      ['Job queue backlog of two million', 'Workers could not keep up after a traffic surge.'],
      ['Background tasks stuck', 'A poison message blocked the consumer for a whole queue.'],
    ],
    [
      'async jobs piling up',
      'workers not processing tasks',
      'message broker congestion',
      'que backlogg growing',
      'is there an incident where the background processing got stuck',
    ],
  ],
  [
    'permissions',
    [
      ['Users could see other teams projects', 'A caching bug ignored access rules on the project list.'],
      ['Admins lost their privileges', 'A role migration removed the admin flag from accounts.'],
    ],
    [
      'access control bypass',
      'people viewing data they should not',
      'role changes removed rights',
      'permision leak',
      'did someone get access to things that were not theirs',
    ],
  ],
  [
    'security-breach',
    [
      ['Leaked API key used by attacker', 'A key committed to a public repository was abused to read data.'],
      ['Credential stuffing attack', 'Thousands of accounts were targeted with stolen passwords.'],
    ],
    [
      'hacker used exposed secret',
      'attack on user accounts with reused passwords',
      'compromised credentials',
      'secuirty breech',
      'were we attacked by someone trying to break in',
    ],
  ],
  [
    'ddos',
    [
      ['Traffic flood took down the edge', 'A botnet sent millions of requests per second to the login page.'],
      ['Volumetric attack on DNS', 'Our name servers were saturated by a reflection attack.'],
    ],
    [
      'denial of service',
      'site overwhelmed by malicious traffic',
      'bot swarm hammering servers',
      'ddos atack',
      'the time the site went down because of too much fake traffic',
    ],
  ],
  [
    'import',
    [
      ['CSV import failing for large files', 'Uploads over 50 MB timed out and left partial data.'],
      ['Spreadsheet upload corrupts accents', 'Files were decoded as Latin-1 instead of UTF-8.'],
    ],
    [
      'bulk upload of spreadsheets broken',
      'special characters garbled after importing',
      'file ingestion timeouts',
      'csv imprt erors',
      'what went wrong when customers uploaded their data files',
    ],
  ],
  [
    'export',
    [
      ['Report export never finishes', 'PDF generation hung for accounts with many rows.'],
      ['Data download gives empty file', 'The export job wrote headers but no rows.'],
    ],
    [
      'cannot download reports',
      'exported file is blank',
      'PDF generation stuck',
      'exprot hangs',
      'is there something about customers failing to get their report files',
    ],
  ],
  [
    'timezone',
    [
      ['Scheduled jobs ran an hour early', 'The daylight saving change was not applied to the scheduler.'],
      ['Dates shown a day off', 'Timestamps were rendered in UTC instead of local time.'],
    ],
    [
      'clock change broke schedules',
      'wrong dates on screen',
      'DST bug',
      'timezon offset wrong',
      'why were times and dates displayed incorrectly',
    ],
  ],
  [
    'video-call',
    [
      ['Meeting audio cutting out', 'The media relay dropped packets under load.'],
      ['Video conferences fail to connect', 'TURN servers were unreachable from corporate networks.'],
    ],
    [
      'calls have choppy sound',
      'cannot join video meetings',
      'conference bridge failure',
      'vidoe cal drops',
      'did the meetings have problems with sound or video',
    ],
  ],
  [
    'translation',
    [
      ['French interface showing English text', 'Missing translation keys after the string freeze.'],
      ['Right-to-left layout broken for Arabic', 'A CSS change flipped the navigation for RTL languages.'],
    ],
    [
      'localisation missing',
      'UI in the wrong language',
      'Arabic pages rendered badly',
      'tranlsation keys missng',
      'is there an issue with languages other than english',
    ],
  ],
  [
    'analytics',
    [
      ['Dashboard metrics undercounted', 'Events from the mobile SDK were dropped by the collector.'],
      ['Charts empty since midnight', 'The aggregation pipeline stopped after a schema change.'],
    ],
    [
      'numbers in reports too low',
      'graphs show nothing',
      'tracking events lost',
      'analytcs data mising',
      'why did the statistics look wrong',
    ],
  ],
  [
    'backup',
    [
      ['Nightly backups silently failing', 'The snapshot job had no credentials for three weeks.'],
      ['Restore test failed', 'Backups could not be read because the encryption key rotated.'],
    ],
    [
      'snapshots not taken',
      'cannot recover from our backups',
      'disaster recovery copy broken',
      'bakup job faling',
      'would we have been able to recover our data',
    ],
  ],
  [
    'network-partition',
    [
      ['Datacenter link down', 'A fibre cut isolated the secondary region.'],
      ['Packet loss between services', 'A misconfigured router dropped a third of internal traffic.'],
    ],
    [
      'connectivity between regions lost',
      'services cannot talk to each other',
      'network cable cut',
      'netwrok packet los',
      'what happened when the two sites could not reach each other',
    ],
  ],
  [
    'config',
    [
      ['Feature flag turned on for everyone', 'A typo in the targeting rule enabled a beta feature globally.'],
      ['Wrong environment variables in production', 'Staging credentials were deployed to prod.'],
    ],
    [
      'toggle enabled by mistake',
      'settings from test environment in live',
      'misconfiguration after release',
      'feture flag misconfgured',
      'was there a problem caused by a wrong setting',
    ],
  ],
  [
    'third-party',
    [
      ['Payment processor outage', 'Our card acquirer had a global incident for two hours.'],
      ['Maps provider down', 'Address autocomplete stopped because the vendor was unavailable.'],
    ],
    [
      'vendor unavailable',
      'external supplier outage affected us',
      'partner service down',
      'thrid party outtage',
      'did any of our suppliers fail and take us down',
    ],
  ],
  [
    'upload',
    [
      ['Avatar uploads rejected', 'The image service refused PNG files after a library upgrade.'],
      ['Attachments lost in tickets', 'Files attached to support tickets were not stored.'],
    ],
    [
      'cannot upload pictures',
      'attached files vanish',
      'image upload errors',
      'uplaod rejeted',
      'is there an incident about files that users tried to attach',
    ],
  ],
  [
    'cron',
    [
      ['Monthly invoices not generated', 'The scheduler skipped the job because of a lock left by a crash.'],
      ['Daily digest sent twice', 'Two scheduler instances ran the same task.'],
    ],
    [
      'scheduled task did not run',
      'periodic job executed twice',
      'timer based jobs broken',
      'cron jbo skipped',
      'what happened to the jobs that run on a schedule',
    ],
  ],
  [
    'cache',
    [
      ['Redis eviction storm', 'Memory pressure evicted session keys and logged users out.'],
      ['Stale prices from cache', 'Cache invalidation missed product updates.'],
    ],
    [
      'cached values out of date',
      'sessions dropped from memory store',
      'key value store evicting',
      'redis cach problms',
      'why did users get logged out unexpectedly',
    ],
  ],
  [
    'sync-connector',
    [
      ['Salesforce sync stalled', 'The connector stopped after the vendor changed pagination.'],
      ['CRM contacts duplicated', 'An upsert used the wrong key and created copies.'],
    ],
    [
      'integration stopped syncing',
      'duplicate contacts in CRM',
      'data replication stuck',
      'sync stalld for salesforce',
      'is there an incident about our data integrations not updating',
    ],
  ],
  [
    'accessibility',
    [
      ['Screen reader cannot use checkout', 'Buttons had no labels after the redesign.'],
      ['Keyboard navigation trapped in modal', 'Focus could not leave the cookie dialog.'],
    ],
    [
      'blind users unable to navigate',
      'cannot tab out of popup',
      'a11y regression',
      'acessibility broken',
      'did we break things for people using assistive technology',
    ],
  ],
  [
    'pricing-page',
    [
      ['Pricing page showing wrong plans', 'The CMS published a draft with old prices.'],
      ['Discount code applied twice', 'Coupons stacked on annual plans.'],
    ],
    [
      'plan prices incorrect',
      'promo codes stacking',
      'tariffs displayed wrong',
      'priceing page eror',
      'were customers shown the wrong cost for subscriptions',
    ],
  ],
  [
    'onboarding',
    [
      ['Signup form broken', 'The captcha script failed to load so nobody could register.'],
      ['Welcome tour stuck on step two', 'New users could not finish onboarding.'],
    ],
    [
      'new customers cannot register',
      'account creation failing',
      'first-run tutorial blocked',
      'sigup form brokn',
      'could new people create an account',
    ],
  ],
  [
    'gpu-ml',
    [
      ['Recommendation model serving stale results', 'The feature store stopped updating embeddings.'],
      ['Inference latency spiked', 'GPU nodes were preempted and traffic fell back to CPU.'],
    ],
    [
      'machine learning predictions outdated',
      'model responses slow',
      'AI recommendations wrong',
      'infrence slow gpus',
      'did the recommendations stop making sense',
    ],
  ],
  [
    'logging',
    [
      ['Logs missing for two hours', 'The log shipper crashed after a configuration reload.'],
      ['Audit trail incomplete', 'Admin actions were not recorded during the migration.'],
    ],
    [
      'no log lines from servers',
      'audit records lost',
      'observability gap',
      'logs mising',
      'was there a period when we could not see what happened on the servers',
    ],
  ],
  [
    'monitoring',
    [
      ['Alerting silent during outage', 'The paging integration was disabled by an expired token.'],
      ['False alarms every night', 'A flapping health check paged on-call repeatedly.'],
    ],
    [
      'on-call was not paged',
      'noisy alerts waking people up',
      'pager broken',
      'alrting not firing',
      'why did nobody get notified when things broke',
    ],
  ],
  [
    'storage-s3',
    [
      ['Object storage access denied', 'A bucket policy change blocked reads from the app.'],
      ['Uploaded files served with wrong type', 'Content-Type headers were lost on copy.'],
    ],
    [
      'bucket permissions broke file access',
      'files downloaded as the wrong format',
      'blob store errors',
      's3 acess denied',
      'what happened with the files we keep in cloud storage',
    ],
  ],
  [
    'kubernetes',
    [
      ['Cluster autoscaler stuck', 'New nodes were not added during the traffic peak.'],
      ['Pods evicted after node upgrade', 'A drain left services without replicas.'],
    ],
    [
      'cluster could not scale up',
      'containers evicted during maintenance',
      'orchestrator problems',
      'kubernets pods evictd',
      'did the container platform fail to add capacity',
    ],
  ],
  [
    'vpn',
    [
      ['Employees cannot reach internal tools', 'The VPN concentrator hit its licence limit.'],
      ['Remote access slow', 'Split tunnelling was disabled by a policy update.'],
    ],
    [
      'staff unable to connect remotely',
      'internal apps unreachable from home',
      'corporate tunnel overloaded',
      'vpn conection fails',
      'could people working from home not get to our tools',
    ],
  ],
  [
    'support-tool',
    [
      ['Help desk tickets not created', 'The inbound email parser rejected messages with attachments.'],
      ['Chat widget missing', 'A content security policy blocked the support chat script.'],
    ],
    [
      'customer requests lost',
      'live chat disappeared',
      'ticketing broken',
      'suport tickets missng',
      'were customer questions not reaching our support team',
    ],
  ],
  [
    'sms',
    [
      ['Two-factor codes not arriving', 'The SMS provider blocked our sender id in several countries.'],
      ['Text messages delayed', 'A carrier queue delayed verification texts by ten minutes.'],
    ],
    [
      '2FA texts missing',
      'verification messages late',
      'one-time passwords not received',
      'sms cods not delivred',
      'why did users not get their login code on their phone',
    ],
  ],
  [
    'api-breaking',
    [
      ['Public API change broke integrations', 'A field was renamed without a version bump.'],
      ['SDK sending invalid requests', 'The client library omitted a required header after an update.'],
    ],
    [
      'backwards incompatible change',
      'client library bug',
      'partners integrations failing after our change',
      'api braking chnage',
      'did we change something that broke our customers code',
    ],
  ],
  [
    'gdpr',
    [
      ['Deletion requests not processed', 'The erasure job failed silently for a month.'],
      ['Personal data in logs', 'Emails and phone numbers were written to application logs.'],
    ],
    [
      'privacy request backlog',
      'PII exposed in logging',
      'right to be forgotten not honoured',
      'gdrp deletion faild',
      'did we keep personal information we should have removed',
    ],
  ],
  [
    'power',
    [
      ['Datacenter power loss', 'A UPS failure during maintenance took down a rack.'],
      ['Cooling failure in server room', 'Overheating forced an emergency shutdown.'],
    ],
    [
      'electricity outage at the facility',
      'servers overheated',
      'hardware shut down',
      'powr failure in dc',
      'what happened when the machines lost electricity',
    ],
  ],
  [
    'inventory',
    [
      ['Stock levels wrong', 'Items showed as available after they sold out.'],
      ['Warehouse sync delayed', 'Fulfilment did not receive orders for three hours.'],
    ],
    [
      'sold out products still purchasable',
      'orders not reaching the warehouse',
      'inventory counts inaccurate',
      'invetory out of sycn',
      'could customers buy things we did not have',
    ],
  ],
  [
    'shipping',
    [
      ['Shipping labels not generated', 'The carrier API rejected addresses without postcodes.'],
      ['Delivery estimates wrong', 'Transit times ignored public holidays.'],
    ],
    [
      'parcels could not be sent',
      'wrong delivery dates promised',
      'carrier integration failure',
      'shiping lables fail',
      'why were packages not shipped on time',
    ],
  ],
  [
    'refunds',
    [
      ['Refunds stuck in pending', 'The refund worker crashed on partial refunds.'],
      ['Refund issued to wrong card', 'A lookup used the latest card instead of the original one.'],
    ],
    [
      'money not returned to customers',
      'reimbursement went to another card',
      'payback processing blocked',
      'refnds pending',
      'did customers wait a long time to get their money back',
    ],
  ],
  [
    'search-relevance',
    [
      ['Search ranking degraded', 'A synonym file upload made unrelated products rank first.'],
      ['Autocomplete suggesting offensive terms', 'User queries were fed into suggestions without filtering.'],
    ],
    [
      'bad search ordering',
      'inappropriate suggestions while typing',
      'query results irrelevant',
      'serach rankng bad',
      'why did searching show the wrong things first',
    ],
  ],
  [
    'browser',
    [
      ['Safari users see blank page', 'A JavaScript feature unsupported by older Safari broke the bundle.'],
      ['Layout broken in Firefox', 'A CSS grid change rendered overlapping panels.'],
    ],
    [
      'site empty on Apple browser',
      'page looks broken in Mozilla',
      'cross browser bug',
      'safar blank screen',
      'did the website not work in some browsers',
    ],
  ],
  [
    'licensing',
    [
      ['Seats over-counted', 'Deactivated users still consumed licences.'],
      ['Trial accounts expired early', 'A timezone bug ended trials a day before the end.'],
    ],
    [
      'paying for inactive users',
      'free trial ended too soon',
      'subscription seats wrong',
      'licnse count wrong',
      'were customers charged for users who left',
    ],
  ],
  [
    'feature-outage',
    [
      ['Comments feature unavailable', 'The comments service could not reach its database.'],
      ['File sharing links broken', 'Shared links returned 404 after a URL format change.'],
    ],
    [
      'cannot comment on documents',
      'shared links dead',
      'collaboration features down',
      'coments not loading',
      'what stopped people from sharing and discussing their work',
    ],
  ],
  [
    'cost',
    [
      ['Cloud bill tripled', 'A debug flag left verbose logging on in every region.'],
      ['Runaway autoscaling', 'A retry storm launched hundreds of instances overnight.'],
    ],
    [
      'infrastructure spending spike',
      'too many servers started by mistake',
      'unexpected hosting costs',
      'cloud cost spik',
      'why did we pay so much for our servers this month',
    ],
  ],
  [
    'accessibility-contrast',
    [
      ['Low contrast text after theme change', 'The new palette failed readability checks.'],
      ['Dark mode unreadable', 'Grey text on black made labels invisible.'],
    ],
    [
      'text hard to read',
      'night theme illegible',
      'colour palette problem',
      'drak mode unreadble',
      'did the new colours make the screen difficult to read',
    ],
  ],
  [
    'time-sync',
    [
      ['Clock drift on servers', 'NTP was blocked and tokens were rejected as expired.'],
      ['Signed URLs rejected', 'Skewed clocks made signatures look like they came from the future.'],
    ],
    [
      'server clocks out of sync',
      'tokens expired too early',
      'time skew errors',
      'clok drift ntp',
      'why were valid links refused as expired',
    ],
  ],
];

/**
 * Queries by the names and codes the incidents themselves use (a vendor, a protocol, a product): the kind of question
 * where words confirm what the vectors only approximate. By topic id.
 */
export const NAMED: readonly (readonly [topic: string, query: string])[] = [
  ['login', 'SAML certificate rotation'],
  ['database-load', 'Postgres replica lag'],
  ['mobile-crash', 'iOS 5.2 onboarding null pointer'],
  ['certificate', 'intermediate certificate chain'],
  ['memory-leak', 'sync worker cache eviction OOM'],
  ['rate-limit', 'shipping partner 429'],
  ['deploy-rollback', 'version 3.14 settings page'],
  ['billing', 'tax applied twice EU subscriptions'],
  ['notifications-push', 'APNs key expired'],
  ['cdn', 'CDN 403 images scripts'],
  ['security-breach', 'API key committed public repository'],
  ['import', 'Latin-1 UTF-8 accents'],
  ['export', 'PDF generation hung'],
  ['video-call', 'TURN servers corporate networks'],
  ['translation', 'RTL Arabic navigation'],
  ['kubernetes', 'cluster autoscaler nodes'],
  ['vpn', 'VPN concentrator licence limit'],
  ['sms', 'SMS sender id blocked'],
  ['sync-connector', 'Salesforce pagination connector'],
  ['browser', 'Safari JavaScript bundle'],
  ['storage-s3', 'bucket policy Content-Type'],
  ['time-sync', 'NTP blocked tokens'],
  ['cache', 'Redis eviction session keys'],
  ['gdpr', 'erasure job PII logs'],
];

/** Questions no incident of the set answers: a ranking by meaning should keep their best matches far from 1. */
export const NEGATIVES: readonly string[] = [
  'quarterly marketing budget planning',
  'recipe for chocolate cake',
  'office party on friday',
  'hiring a new designer',
  'team offsite agenda',
  'how to knit a scarf',
  'best hiking trails in spring',
  'annual performance review template',
  'football match results',
  'holiday calendar for next year',
  'new logo colours brainstorm',
  'coffee machine order',
  'podcast episode ideas',
  'book club reading list',
  'yoga class schedule',
  'parking spaces allocation',
  'birthday gift ideas',
  'weather forecast for the weekend',
  'sales commission plan',
  'conference talk proposals',
];
