import GateKitSupport

/// Whom a PostgreSQL store's namespace belongs to. The SQLite store refuses a file another
/// user owns or can write (`.EUNSAFE`); this is the same rule for the server's roles: a
/// role that owns the schema, or any object in it, or may create objects there, could drop the
/// append-only history, rewrite states, or run code as GateKit's role through a trigger on a
/// table GateKit writes. So before GateKit reads or builds a store, the schema and every
/// relation, function, type and trigger in it must be owned by the connecting role (or, for a
/// team's store, by one role the connecting role is a member of, chosen with
/// `StoreSharing.group`), no other role may create objects in it or write its tables, and
/// every trigger must be one GateKit creates. (A superuser, and a member of the owning role,
/// can still do anything: PostgreSQL gives no way to refuse them.)
enum PostgresOwnership {
    /// The first problems found (empty: the namespace is the connecting role's, or the team's).
    /// ?1 the namespace; ?2 'true' when another owner role is accepted; ?3 the expected triggers;
    /// ?4 the expected functions (as text arrays).
    private static let problems = """
        WITH ns AS (SELECT oid, nspname, nspowner, nspacl FROM pg_namespace WHERE nspname = ?1),
        me AS (SELECT oid FROM pg_roles WHERE rolname = current_user)
        SELECT 'schema ' || quote_ident(ns.nspname) || ' is owned by role ' || quote_ident(pg_get_userbyid(ns.nspowner))
               || ', not by ' || quote_ident(current_user)
          FROM ns, me WHERE ns.nspowner <> me.oid AND NOT (CAST(?2 AS BOOLEAN) AND pg_has_role(current_user, ns.nspowner, 'MEMBER'))
        UNION ALL
        SELECT 'role ' || CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END
               || ' may create objects in schema ' || quote_ident(ns.nspname)
          FROM ns, aclexplode(ns.nspacl) a WHERE a.privilege_type = 'CREATE' AND a.grantee <> ns.nspowner
        UNION ALL
        SELECT CASE c.relkind WHEN 'r' THEN 'table ' WHEN 'i' THEN 'index ' WHEN 'S' THEN 'sequence ' WHEN 'v' THEN 'view '
               ELSE 'relation ' END || quote_ident(c.relname) || ' is owned by role ' || quote_ident(pg_get_userbyid(c.relowner))
          FROM ns JOIN pg_class c ON c.relnamespace = ns.oid WHERE c.relowner <> ns.nspowner
        UNION ALL
        SELECT 'role ' || CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END
               || ' may ' || a.privilege_type || ' table ' || quote_ident(c.relname)
          FROM ns JOIN pg_class c ON c.relnamespace = ns.oid, aclexplode(c.relacl) a
          WHERE a.grantee <> c.relowner AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES')
        UNION ALL
        SELECT 'function ' || quote_ident(p.proname) || ' is owned by role ' || quote_ident(pg_get_userbyid(p.proowner))
               || CASE WHEN p.proname = ANY(CAST(?4 AS TEXT[])) THEN '' ELSE ' and is not one GateKit creates' END
          FROM ns JOIN pg_proc p ON p.pronamespace = ns.oid
          WHERE p.proowner <> ns.nspowner OR NOT p.proname = ANY(CAST(?4 AS TEXT[]))
        UNION ALL
        SELECT 'type ' || quote_ident(t.typname) || ' is owned by role ' || quote_ident(pg_get_userbyid(t.typowner))
          FROM ns JOIN pg_type t ON t.typnamespace = ns.oid WHERE t.typowner <> ns.nspowner
        UNION ALL
        SELECT 'trigger ' || quote_ident(g.tgname) || ' on table ' || quote_ident(c.relname)
               || CASE WHEN EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = g.tgfoid AND p.pronamespace = ns.oid
                                                             AND p.proname = 'gatekit_append_only')
                       THEN ' \(unknownAppendOnly)' ELSE ' is not one GateKit creates' END
          FROM ns JOIN pg_class c ON c.relnamespace = ns.oid JOIN pg_trigger g ON g.tgrelid = c.oid
          WHERE NOT g.tgisinternal AND (NOT g.tgname = ANY(CAST(?3 AS TEXT[])) OR NOT EXISTS (
              SELECT 1 FROM pg_proc p WHERE p.oid = g.tgfoid AND p.pronamespace = ns.oid AND p.proname = 'gatekit_append_only'))
        UNION ALL
        SELECT 'rule ' || quote_ident(r.rulename) || ' on table ' || quote_ident(c.relname) || ' is not one GateKit creates'
          FROM ns JOIN pg_class c ON c.relnamespace = ns.oid JOIN pg_rewrite r ON r.ev_class = c.oid
        UNION ALL
        SELECT 'row-level security policy ' || quote_ident(pol.polname) || ' on table ' || quote_ident(c.relname) || ' is not one GateKit creates'
          FROM ns JOIN pg_class c ON c.relnamespace = ns.oid JOIN pg_policy pol ON pol.polrelid = c.oid
        LIMIT 5
        """

    /// An append-only trigger of GateKit's own function under a name this version does not
    /// create: what a newer GateKit's migration leaves (its version then decides, not this).
    static let unknownAppendOnly = "is an append-only trigger this GateKit does not know"

    /// The first problems of a namespace that is not wholly the connecting role's (or, with
    /// `sharedOwner`, one role's it belongs to), each naming the object and its owner.
    static func problems(_ db: any DatabaseConnection, namespace: String, sharedOwner: Bool, schema: StoreSchema) throws(GateKitError) -> [String] {
        let s = try db.statement(problems)
        defer { s.reset() }
        func array(_ names: some Sequence<String>) -> String { "{" + names.sorted().map { "\"\($0)\"" }.joined(separator: ",") + "}" }
        s.bind(1, text: namespace).bind(2, text: sharedOwner ? "true" : "false")
            .bind(3, text: array(schema.postgresTriggers)).bind(4, text: array(schema.postgresFunctions))
        var found: [String] = []
        while try s.step() { if let p = s.text(0) { found.append(p) } }
        return found
    }

    static func refusal(_ found: [String], namespace: String, location: String) -> GateKitError {
        GateKitError(.EUNSAFE, "the store \(Quoted.text(namespace)) in \(location) is not GateKit's alone: \(found.joined(separator: "; ")); nothing was read or written")
    }

    /// Refuses (`.EUNSAFE`) a namespace with any problem.
    static func check(_ db: any DatabaseConnection, namespace: String, sharedOwner: Bool, location: String, schema: StoreSchema) throws(GateKitError) {
        let found = try problems(db, namespace: namespace, sharedOwner: sharedOwner, schema: schema)
        guard found.isEmpty else { throw refusal(found, namespace: namespace, location: location) }
    }
}
