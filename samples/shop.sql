-- Sample web shop + small clinic, as a SQLite database (schema only: the catalog never reads rows).
CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  date_of_birth DATE,
  street TEXT,
  postal_code TEXT,
  city TEXT,
  country_code TEXT,
  marketing_opt_in INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP
);
CREATE TABLE products (
  product_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT,
  price_cents INTEGER NOT NULL,
  currency TEXT NOT NULL DEFAULT 'EUR',
  stock_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  status TEXT NOT NULL,
  total_cents INTEGER NOT NULL,
  shipping_address TEXT,
  ordered_at TIMESTAMP NOT NULL
);
CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders(order_id),
  product_id INTEGER NOT NULL REFERENCES products(product_id),
  quantity INTEGER NOT NULL,
  unit_price_cents INTEGER NOT NULL,
  PRIMARY KEY (order_id, product_id)
);
CREATE TABLE user_sessions (
  session_id TEXT PRIMARY KEY,
  customer_id INTEGER REFERENCES customers(customer_id),
  ip_address TEXT,
  user_agent TEXT,
  last_seen_at TIMESTAMP
);
CREATE TABLE patients (
  patient_id INTEGER PRIMARY KEY,
  customer_id INTEGER REFERENCES customers(customer_id),
  blood_type TEXT,
  allergies TEXT,
  insurance_number TEXT
);
CREATE TABLE appointments (
  appointment_id INTEGER PRIMARY KEY,
  patient_id INTEGER NOT NULL REFERENCES patients(patient_id),
  diagnosis TEXT,
  visit_type TEXT,
  scheduled_for TIMESTAMP NOT NULL,
  notes TEXT
);
CREATE VIEW customer_orders AS
  SELECT c.customer_id, c.email, o.order_id, o.total_cents, o.ordered_at
  FROM customers c JOIN orders o ON o.customer_id = c.customer_id;
CREATE VIEW product_sales AS
  SELECT p.product_id, p.name, sum(i.quantity) AS units
  FROM products p JOIN order_items i ON i.product_id = p.product_id GROUP BY p.product_id;
