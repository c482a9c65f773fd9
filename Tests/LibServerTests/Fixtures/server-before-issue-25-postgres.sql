--
-- PostgreSQL database dump
--

\restrict katgWUxil7dgSr2aVGoYTwBKhb3odxaGN7gbmUf6652aaRjbGm1EehwsVyv5xd4

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: books; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.books (
    id text NOT NULL COLLATE pg_catalog."C",
    version bigint NOT NULL,
    etag text NOT NULL,
    document text
);


--
-- Name: history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.history (
    book_id text NOT NULL COLLATE pg_catalog."C",
    version bigint NOT NULL,
    etag text NOT NULL,
    updated_by text NOT NULL,
    at text NOT NULL,
    document text
);


--
-- Name: idempotency; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency (
    user_id text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    status integer NOT NULL,
    etag text,
    body text NOT NULL,
    created_at double precision NOT NULL,
    claim text,
    lease_until double precision
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    name text NOT NULL,
    applied_at double precision NOT NULL
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    token_hash text NOT NULL,
    user_id text NOT NULL,
    created_at double precision NOT NULL,
    revoked_at double precision
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id text NOT NULL,
    username text NOT NULL,
    role text NOT NULL,
    password_hash text NOT NULL,
    created_at double precision NOT NULL,
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['librarian'::text, 'reader'::text])))
);


--
-- Data for Name: books; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.books (id, version, etag, document) FROM stdin;
b-1	1	"1-28eda1d2"	{"id":"b-1","title":"Pride and Prejudice","author":"Jane Austen","year":1813,"copies":1,"tags":["classic","romance"]}
b-2	1	"1-c6e0e2b1"	{"id":"b-2","title":"Moby-Dick","author":"Herman Melville","year":1851,"copies":2,"tags":["classic","sea"]}
b-3	1	"1-def10f99"	{"id":"b-3","title":"The Left Hand of Darkness","author":"Ursula K. Le Guin","year":1969,"copies":3,"tags":["sf"]}
b-4	1	"1-3a8c337b"	{"id":"b-4","title":"Things Fall Apart","author":"Chinua Achebe","year":1958,"copies":4,"tags":["classic"]}
b-5	1	"1-9a09ab40"	{"id":"b-5","title":"One Hundred Years of Solitude","author":"Gabriel García Márquez","year":1967,"copies":1,"tags":["magical realism"]}
b-6	1	"1-5018c3e9"	{"id":"b-6","title":"Frankenstein","author":"Mary Shelley","year":1818,"copies":2,"tags":["classic","horror"]}
b-9	1	"1-c50408ed"	{"id":"b-9","title":"The Name of the Rose","author":"Umberto Eco","year":1980,"copies":1,"tags":["mystery","historical"]}
b-10	1	"1-c4d910f2"	{"id":"b-10","title":"Neuromancer","author":"William Gibson","year":1984,"copies":2,"tags":["sf","cyberpunk"]}
b-11	1	"1-7491234f"	{"id":"b-11","title":"Middlemarch","author":"George Eliot","year":1871,"copies":3,"tags":["classic"]}
b-12	1	"1-0df0956b"	{"id":"b-12","title":"The Master and Margarita","author":"Mikhail Bulgakov","year":1967,"copies":4,"tags":["classic","satire"]}
b-13	1	"1-73b0c7d3"	{"id":"b-13","title":"Kindred","author":"Octavia E. Butler","year":1979,"copies":1,"tags":["sf","historical"]}
b-14	1	"1-aaeb7252"	{"id":"b-14","title":"Invisible Cities","author":"Italo Calvino","year":1972,"copies":2,"tags":["fiction"]}
b-15	1	"1-f7b95df2"	{"id":"b-15","title":"The Remains of the Day","author":"Kazuo Ishiguro","year":1989,"copies":3,"tags":["fiction"]}
b-16	1	"1-d2d0a88d"	{"id":"b-16","title":"Foundation","author":"Isaac Asimov","year":1951,"copies":4,"tags":["sf"]}
b-17	1	"1-0079e618"	{"id":"b-17","title":"Jane Eyre","author":"Charlotte Brontë","year":1847,"copies":1,"tags":["classic","romance"]}
b-18	1	"1-6d72de6f"	{"id":"b-18","title":"The Hobbit","author":"J. R. R. Tolkien","year":1937,"copies":2,"tags":["fantasy"]}
b-19	1	"1-4c80e6be"	{"id":"b-19","title":"Ficciones","author":"Jorge Luis Borges","year":1944,"copies":3,"tags":["short stories"]}
b-20	1	"1-c09e79c1"	{"id":"b-20","title":"Station Eleven","author":"Emily St. John Mandel","year":2014,"copies":4,"tags":["fiction"]}
b-7	2	"2-7bca967c"	{"id":"b-7","title":"Written by main"}
b-8	2	"2-ee7f8e06"	\N
\.


--
-- Data for Name: history; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.history (book_id, version, etag, updated_by, at, document) FROM stdin;
b-1	1	"1-28eda1d2"	demo	2026-12-01T21:13:47.324Z	{"id":"b-1","title":"Pride and Prejudice","author":"Jane Austen","year":1813,"copies":1,"tags":["classic","romance"]}
b-2	1	"1-c6e0e2b1"	demo	2026-12-01T21:13:47.325Z	{"id":"b-2","title":"Moby-Dick","author":"Herman Melville","year":1851,"copies":2,"tags":["classic","sea"]}
b-3	1	"1-def10f99"	demo	2026-12-01T21:13:47.325Z	{"id":"b-3","title":"The Left Hand of Darkness","author":"Ursula K. Le Guin","year":1969,"copies":3,"tags":["sf"]}
b-4	1	"1-3a8c337b"	demo	2026-12-01T21:13:47.325Z	{"id":"b-4","title":"Things Fall Apart","author":"Chinua Achebe","year":1958,"copies":4,"tags":["classic"]}
b-5	1	"1-9a09ab40"	demo	2026-12-01T21:13:47.326Z	{"id":"b-5","title":"One Hundred Years of Solitude","author":"Gabriel García Márquez","year":1967,"copies":1,"tags":["magical realism"]}
b-6	1	"1-5018c3e9"	demo	2026-12-01T21:13:47.326Z	{"id":"b-6","title":"Frankenstein","author":"Mary Shelley","year":1818,"copies":2,"tags":["classic","horror"]}
b-7	1	"1-a343c384"	demo	2026-12-01T21:13:47.326Z	{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965,"copies":3,"tags":["sf","classic"]}
b-8	1	"1-cbe19344"	demo	2026-12-01T21:13:47.326Z	{"id":"b-8","title":"Beloved","author":"Toni Morrison","year":1987,"copies":4,"tags":["historical"]}
b-9	1	"1-c50408ed"	demo	2026-12-01T21:13:47.326Z	{"id":"b-9","title":"The Name of the Rose","author":"Umberto Eco","year":1980,"copies":1,"tags":["mystery","historical"]}
b-10	1	"1-c4d910f2"	demo	2026-12-01T21:13:47.327Z	{"id":"b-10","title":"Neuromancer","author":"William Gibson","year":1984,"copies":2,"tags":["sf","cyberpunk"]}
b-11	1	"1-7491234f"	demo	2026-12-01T21:13:47.327Z	{"id":"b-11","title":"Middlemarch","author":"George Eliot","year":1871,"copies":3,"tags":["classic"]}
b-12	1	"1-0df0956b"	demo	2026-12-01T21:13:47.327Z	{"id":"b-12","title":"The Master and Margarita","author":"Mikhail Bulgakov","year":1967,"copies":4,"tags":["classic","satire"]}
b-13	1	"1-73b0c7d3"	demo	2026-12-01T21:13:47.327Z	{"id":"b-13","title":"Kindred","author":"Octavia E. Butler","year":1979,"copies":1,"tags":["sf","historical"]}
b-14	1	"1-aaeb7252"	demo	2026-12-01T21:13:47.327Z	{"id":"b-14","title":"Invisible Cities","author":"Italo Calvino","year":1972,"copies":2,"tags":["fiction"]}
b-15	1	"1-f7b95df2"	demo	2026-12-01T21:13:47.327Z	{"id":"b-15","title":"The Remains of the Day","author":"Kazuo Ishiguro","year":1989,"copies":3,"tags":["fiction"]}
b-16	1	"1-d2d0a88d"	demo	2026-12-01T21:13:47.328Z	{"id":"b-16","title":"Foundation","author":"Isaac Asimov","year":1951,"copies":4,"tags":["sf"]}
b-17	1	"1-0079e618"	demo	2026-12-01T21:13:47.328Z	{"id":"b-17","title":"Jane Eyre","author":"Charlotte Brontë","year":1847,"copies":1,"tags":["classic","romance"]}
b-18	1	"1-6d72de6f"	demo	2026-12-01T21:13:47.328Z	{"id":"b-18","title":"The Hobbit","author":"J. R. R. Tolkien","year":1937,"copies":2,"tags":["fantasy"]}
b-19	1	"1-4c80e6be"	demo	2026-12-01T21:13:47.328Z	{"id":"b-19","title":"Ficciones","author":"Jorge Luis Borges","year":1944,"copies":3,"tags":["short stories"]}
b-20	1	"1-c09e79c1"	demo	2026-12-01T21:13:47.328Z	{"id":"b-20","title":"Station Eleven","author":"Emily St. John Mandel","year":2014,"copies":4,"tags":["fiction"]}
b-7	2	"2-7bca967c"	u-f9786ce0f914	2026-12-01T21:13:47.712Z	{"id":"b-7","title":"Written by main"}
b-8	2	"2-ee7f8e06"	u-f9786ce0f914	2026-12-01T21:13:47.753Z	\N
\.


--
-- Data for Name: idempotency; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.idempotency (user_id, key, request_hash, status, etag, body, created_at, claim, lease_until) FROM stdin;
u-f9786ce0f914	fixture-1	724a55fb88db0ce17181c44195d602c4d5c62ca1b7af63558350fbf397fdafcf	200	"2-7bca967c"	{"id":"b-7","title":"Written by main"}	1796159627.7068944	\N	\N
u-f9786ce0f914	fixture-2	3a45eb81d019c6c4c020925f0edf712fa8da82d079dffd9316e17d013c222c9e	204	\N		1796159627.7521737	\N	\N
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (name, applied_at) FROM stdin;
001-library	1796159626.704762
\.


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sessions (token_hash, user_id, created_at, revoked_at) FROM stdin;
aa02b0e89c026e3fb03ec1a7354efca13e92b478f673296213bc1ab6fac75516	u-f9786ce0f914	1796159627.5202613	\N
\.


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.users (id, username, role, password_hash, created_at) FROM stdin;
u-4e131df3e9a6	dora	librarian	$argon2id$v=19$m=65536,t=2,p=1$M1L+kNhlBnUmRbP1jhWu9w$QvTPhpbe5KJ1M6J34lwHYQMUrKEzO1veW7o0K45khtA	1796159626.8638313
u-f9786ce0f914	alice	librarian	$argon2id$v=19$m=65536,t=2,p=1$DTloOynfBnT5UjB9F2tlbA$Vr9WariUHp5cYleRFFkdixs/x8tKWtbVVsp+Ju2EPY8	1796159627.1069105
u-bbb9dd61c7e8	bob	librarian	$argon2id$v=19$m=65536,t=2,p=1$pAv5CPBQN7ZhEsj/stWjqg$vOQtW6drGPbnsOyBL46o2w9Z2EVB1ksKkvKHQa2b+u8	1796159627.2370496
u-bfc425cc0237	carol	reader	$argon2id$v=19$m=65536,t=2,p=1$ZXA4UW2tjeeL2vhzDkCAFg$oQO2FfRY4L/aocKzAQJNi69Yz2OH+fJEe88vZQjbrZ8	1796159627.3132348
\.


--
-- Name: books books_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.books
    ADD CONSTRAINT books_pkey PRIMARY KEY (id);


--
-- Name: history history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.history
    ADD CONSTRAINT history_pkey PRIMARY KEY (book_id, version);


--
-- Name: idempotency idempotency_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency
    ADD CONSTRAINT idempotency_pkey PRIMARY KEY (user_id, key);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (name);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (token_hash);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: users users_username_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_username_key UNIQUE (username);


--
-- Name: idempotency_by_age; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_by_age ON public.idempotency USING btree (created_at);


--
-- Name: sessions sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- PostgreSQL database dump complete
--

\unrestrict katgWUxil7dgSr2aVGoYTwBKhb3odxaGN7gbmUf6652aaRjbGm1EehwsVyv5xd4

