/*
 * GsstJdbc.java - what pgjdbc, as Debian ships it, does with a gsst column
 * and no setup: run by test/tap/021_jdbc.pl with the single-file source
 * launcher (java -cp postgresql.jar GsstJdbc.java URL).  Prints one
 * "name=value" line per finding; the test compares them with the server's.
 */
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;

public class GsstJdbc
{
	static void say(String name, Object value)
	{
		System.out.println(name + "=" + value);
	}

	static String hex(byte[] digest)
	{
		StringBuilder sb = new StringBuilder();
		for (byte b : digest)
			sb.append(String.format("%02x", b));
		return sb.toString();
	}

	/* md5 of "id:value\n" per row, in id order, NULL as \N */
	static String digest(ResultSet rs) throws Exception
	{
		MessageDigest md = MessageDigest.getInstance("MD5");
		while (rs.next())
		{
			String v = rs.getString(2);
			String line = rs.getLong(1) + ":" + (v == null ? "\\N" : v) + "\n";
			md.update(line.getBytes(StandardCharsets.UTF_8));
		}
		return hex(md.digest());
	}

	static String plan(PreparedStatement ps) throws Exception
	{
		StringBuilder sb = new StringBuilder();
		try (ResultSet rs = ps.executeQuery())
		{
			while (rs.next())
				sb.append(rs.getString(1)).append(' ');
		}
		return sb.toString().trim();
	}

	public static void main(String[] args) throws Exception
	{
		try (Connection conn = DriverManager.getConnection(args[0]))
		{
			conn.setAutoCommit(true);

			/* every value, through getString: simple protocol, then prepared
			 * (prepareThreshold 1: a named server-side statement) */
			try (Statement st = conn.createStatement();
				 ResultSet rs = st.executeQuery("SELECT id, c FROM t ORDER BY id"))
			{
				say("read_statement", digest(rs));
			}
			try (PreparedStatement ps = conn.prepareStatement("SELECT id, c FROM t WHERE id > ? ORDER BY id"))
			{
				ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(1);
				for (int i = 0; i < 3; i++)
				{
					ps.setLong(1, 0);
					try (ResultSet rs = ps.executeQuery())
					{
						say("read_prepared_" + i, digest(rs));
					}
				}
			}

			/* the type the driver reports, and getObject */
			try (Statement st = conn.createStatement();
				 ResultSet rs = st.executeQuery("SELECT c FROM t WHERE id = 3001"))
			{
				rs.next();
				say("column_type", rs.getMetaData().getColumnTypeName(1));
				Object o = rs.getObject(1);
				say("get_object_class", o.getClass().getName());
				if (o instanceof org.postgresql.util.PGobject)
					say("get_object_value", ((org.postgresql.util.PGobject) o).getValue());
			}

			/* a string parameter, as setString sends it (varchar), finds the
			 * row through the index */
			try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM t WHERE c = ?"))
			{
				ps.setString(1, "emoji 🐘🐘 elephant ünïcödé ∑ ≠ ∞");
				try (ResultSet rs = ps.executeQuery())
				{
					StringBuilder ids = new StringBuilder();
					while (rs.next())
						ids.append(rs.getLong(1)).append(' ');
					say("lookup_ids", ids.toString().trim());
				}
			}
			try (PreparedStatement ps = conn.prepareStatement("EXPLAIN (COSTS OFF) SELECT id FROM t WHERE c = ?"))
			{
				ps.setString(1, "user1000@example.com");
				say("lookup_plan", plan(ps));
			}
			try (PreparedStatement ps = conn.prepareStatement("EXPLAIN (COSTS OFF) SELECT id FROM t WHERE c > ? ORDER BY c LIMIT 5"))
			{
				ps.setString(1, "user1000@example.com");
				say("range_plan", plan(ps));
			}

			/* writing through setString, NULL and empty included */
			try (PreparedStatement ps = conn.prepareStatement("INSERT INTO w (id, c) VALUES (?, ?)"))
			{
				String[] vs = { "", "Zoë", "東京", null, "plain ascii" };
				for (int i = 0; i < vs.length; i++)
				{
					ps.setInt(1, i + 1);
					ps.setString(2, vs[i]);
					ps.addBatch();
				}
				ps.executeBatch();
			}

			/* gsst[]: getArray */
			try (Statement st = conn.createStatement();
				 ResultSet rs = st.executeQuery("SELECT ARRAY['a', '', 'Zoë', NULL, '東京']::gsst[]"))
			{
				rs.next();
				Array a = rs.getArray(1);
				Object[] items = (Object[]) a.getArray();
				StringBuilder sb = new StringBuilder();
				for (Object item : items)
					sb.append(item == null ? "<null>" : "<" + item + ">");
				say("array", sb);
			}
		}
		say("done", "yes");
	}
}
